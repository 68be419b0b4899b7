/**
 * Paid calls from the environment (docs/payments.md "Paid calls (x402)"): on when `X402_PAY_TO` is set. Read once at
 * start-up without loading any x402 code; a bad value throws naming the variable.
 */

import { readRequestBounds } from '../http/bounds.js';
import type { PayloadBounds } from './payload.js';

type Env = Record<string, string | undefined>;

export interface PayConfig {
  /** The EVM address that receives payments. */
  payTo: `0x${string}`;
  /** Price per call in USD, e.g. `$0.01`; the exact scheme converts it to the network's USDC. */
  price: `$${string}`;
  /** CAIP-2 network id (x402 v2), e.g. `eip155:84532` (Base Sepolia). */
  network: `eip155:${string}`;
  facilitatorUrl: string;
  /** How long a signed authorization stays valid for the payer (PaymentRequirements.maxTimeoutSeconds). */
  maxTimeoutSeconds: number;
  /** A base64 payment, decoded, is held to the body's bounds (MCP_MAX_BODY_BYTES, MCP_MAX_JSON_DEPTH). */
  payloadBounds: PayloadBounds;
}

export const DEFAULT_PRICE = '$0.01';
export const DEFAULT_NETWORK = 'eip155:84532';
/** The public testnet facilitator the x402 SDKs default to (reference §A4). */
export const DEFAULT_FACILITATOR_URL = 'https://x402.org/facilitator';

/** x402 v1 network names people still write, as v2 CAIP-2 ids (reference §A1). */
const NETWORK_ALIASES: Record<string, `eip155:${string}`> = { base: 'eip155:8453', 'base-sepolia': 'eip155:84532' };

function readPrice(value: string | undefined): PayConfig['price'] {
  const text = value?.trim() || DEFAULT_PRICE;
  const match = /^\$?(\d+(?:\.\d+)?)$/.exec(text);
  if (!match || Number(match[1]) <= 0) throw new TypeError(`X402_PRICE must be a positive USD amount such as $0.01, got "${value}".`);
  return `$${match[1]}`;
}

function readNetwork(value: string | undefined): PayConfig['network'] {
  const text = value?.trim() || DEFAULT_NETWORK;
  const network = NETWORK_ALIASES[text] ?? text;
  if (!/^eip155:\d+$/.test(network)) {
    throw new TypeError(`X402_NETWORK must be an EVM network as a CAIP-2 id such as eip155:84532 (or base, base-sepolia), got "${value}".`);
  }
  return network as PayConfig['network'];
}

function readFacilitatorUrl(value: string | undefined): string {
  const text = value?.trim() || DEFAULT_FACILITATOR_URL;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`X402_FACILITATOR_URL must be an absolute http(s) URL, got "${value}".`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`X402_FACILITATOR_URL must be an http(s) URL, got "${value}".`);
  return text.replace(/\/+$/, '');
}

/** The payment settings; undefined when `X402_PAY_TO` is not set (every call is free). */
export function readPayConfig(env: Env): PayConfig | undefined {
  const payTo = env.X402_PAY_TO?.trim();
  if (!payTo) {
    for (const name of ['X402_PRICE', 'X402_NETWORK', 'X402_FACILITATOR_URL']) {
      if (env[name]?.trim()) throw new TypeError(`${name} is set but X402_PAY_TO is not; set X402_PAY_TO to turn paid calls on.`);
    }
    return undefined;
  }
  if (!/^0x[0-9a-fA-F]{40}$/.test(payTo)) throw new TypeError(`X402_PAY_TO must be an EVM address (0x followed by 40 hex digits), got "${env.X402_PAY_TO}".`);
  return {
    payTo: payTo as PayConfig['payTo'],
    price: readPrice(env.X402_PRICE),
    network: readNetwork(env.X402_NETWORK),
    facilitatorUrl: readFacilitatorUrl(env.X402_FACILITATOR_URL),
    maxTimeoutSeconds: 300,
    payloadBounds: payloadBoundsOf(env),
  };
}

function payloadBoundsOf(env: Env): PayloadBounds {
  const { maxBodyBytes, maxJsonDepth } = readRequestBounds(env);
  return { maxBodyBytes, maxJsonDepth };
}
