/**
 * Paid calls from the environment (docs/payments.md "Paid calls (x402)"): on when `X402_PAY_TO` is set. Read once at
 * start-up without loading any x402 code; a bad value throws naming the variable.
 */

import { readRequestBounds } from '../http/bounds.js';
import type { PayloadBounds } from './payload.js';
import { parseUsd, type TokenPrices } from './price.js';

type Env = Record<string, string | undefined>;

export interface PayConfig {
  /** The EVM address that receives payments. */
  payTo: `0x${string}`;
  /** Price per call in USD, e.g. `$0.01`; the exact scheme converts it to the network's USDC. */
  price: `$${string}`;
  /**
   * chat_with_agent's prices per million input/output tokens and its ceiling per call (X402_PRICE_INPUT,
   * X402_PRICE_OUTPUT, X402_MAX_PRICE): set, its `accepts` offers x402 `upto` beside `exact`.
   */
  tokens?: TokenPrices;
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
  return readUsd('X402_PRICE', value?.trim() || DEFAULT_PRICE, '$0.01', true);
}

/** A USD amount from `name`; zero only where `positive` is false. */
function readUsd(name: string, value: string, example: string, positive: boolean): PayConfig['price'] {
  const price = parseUsd(value);
  if (!price || (positive && !/[1-9]/.test(price))) {
    throw new TypeError(`${name} must be a ${positive ? 'positive ' : ''}USD amount such as ${example}, got "${value}".`);
  }
  return price;
}

const TOKEN_PRICE_VARIABLES = ['X402_PRICE_INPUT', 'X402_PRICE_OUTPUT', 'X402_MAX_PRICE'] as const;

/** Token prices come as a set of three (docs/payments.md "Charging by use (upto)"); some without the others is refused. */
function readTokenPrices(env: Env): TokenPrices | undefined {
  const given = TOKEN_PRICE_VARIABLES.filter((name) => env[name]?.trim());
  if (given.length === 0) return undefined;
  const missing = TOKEN_PRICE_VARIABLES.find((name) => !given.includes(name));
  if (missing) throw new TypeError(`${missing} is not set but ${given.join(' and ')} ${given.length > 1 ? 'are' : 'is'}; charging by use needs X402_PRICE_INPUT, X402_PRICE_OUTPUT and X402_MAX_PRICE.`);
  const input = readUsd('X402_PRICE_INPUT', env.X402_PRICE_INPUT!.trim(), '$3 (per million input tokens)', false);
  const output = readUsd('X402_PRICE_OUTPUT', env.X402_PRICE_OUTPUT!.trim(), '$15 (per million output tokens)', false);
  if (!/[1-9]/.test(input + output)) throw new TypeError('X402_PRICE_INPUT and X402_PRICE_OUTPUT are both zero; set a price for input or output tokens, or unset all three token price variables.');
  return { input, output, max: readUsd('X402_MAX_PRICE', env.X402_MAX_PRICE!.trim(), '$0.50', true) };
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
    for (const name of ['X402_PRICE', ...TOKEN_PRICE_VARIABLES, 'X402_NETWORK', 'X402_FACILITATOR_URL']) {
      if (env[name]?.trim()) throw new TypeError(`${name} is set but X402_PAY_TO is not; set X402_PAY_TO to turn paid calls on.`);
    }
    return undefined;
  }
  if (!/^0x[0-9a-fA-F]{40}$/.test(payTo)) throw new TypeError(`X402_PAY_TO must be an EVM address (0x followed by 40 hex digits), got "${env.X402_PAY_TO}".`);
  return {
    payTo: payTo as PayConfig['payTo'],
    price: readPrice(env.X402_PRICE),
    tokens: readTokenPrices(env),
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
