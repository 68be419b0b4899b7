/**
 * The x402 side of a paid call, on `@x402/core` + `@x402/evm` (`exact`, EIP-3009; and `upto`, Permit2, for a call
 * charged by use: docs/payments.md "Charging by use (upto)"), loaded on the first paid call only. What a call costs is
 * the paid thing's own (an Offer: the tool's price, chat_with_agent's token prices), not the engine's. Answers are values: verified or refused with the facilitator's reason, settled or not, or
 * `unavailable` when the facilitator cannot be reached (then nothing was charged).
 *
 * The resource server asks the facilitator what it supports once per instance (`initialize`, a round trip),
 * lazily, and forgets a failed attempt so the next call tries again (reference §A6 serverless note).
 */

import type { FacilitatorClient, x402ResourceServer } from '@x402/core/server';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, PaymentRequirementsV1, ResourceInfo, SettleResponse } from '@x402/core/types';
import type { PayConfig } from './config.js';
import type { AnyPaymentPayload } from './payload.js';
import type { Offer } from './price.js';
import { isV1, v1RequirementsFor } from './v1.js';

/** Facilitator requests give up after this long; a settle that times out is indeterminate (reference §A4). */
const FACILITATOR_TIMEOUT_MS = 30_000;

/** USDC's decimals, which x402 assumes for an asset whose scheme does not say (as @x402/core's settlement overrides do). */
const FALLBACK_DECIMALS = 6;

/** The requirement a payment was verified against, in its own version's form. */
export type MatchedRequirements = PaymentRequirements | PaymentRequirementsV1;

export type VerifyOutcome =
  | { kind: 'verified'; requirements: MatchedRequirements; payer?: string }
  | { kind: 'refused'; reason: string }
  | { kind: 'unavailable'; reason: string };

export type SettleOutcome =
  | { kind: 'settled'; receipt: SettleResponse }
  | { kind: 'failed'; reason: string; receipt?: SettleResponse };

export interface PaymentEngine {
  readonly config: PayConfig;
  /** What the client must pay for `resource` at `offer` (exact, and upto where it has token prices), with `error` saying why an attempt was refused. */
  paymentRequired(resource: ResourceInfo, error: string, offer: Offer): Promise<PaymentRequired>;
  /** `resource` names the paid call in the v1 requirements a v1 payment is checked against. */
  verify(payload: AnyPaymentPayload, resource: ResourceInfo, offer: Offer): Promise<VerifyOutcome>;
  /** Settles `requirements`' amount, or `amount` (smallest units, never above it) for an `upto` payment. */
  settle(payload: AnyPaymentPayload, requirements: MatchedRequirements, amount?: bigint): Promise<SettleOutcome>;
  /** The decimals of the asset `requirements` pay in: what turns a price into its smallest units. */
  decimalsOf(requirements: PaymentRequirements): Promise<number>;
}

export interface PaymentEngineOptions {
  /** Any x402 `FacilitatorClient` (tests run the real facilitator logic in-process); HTTP to the URL otherwise. */
  facilitator?: FacilitatorClient;
}

interface Ready {
  server: x402ResourceServer;
  facilitator: FacilitatorClient;
  decimalsOf(requirements: PaymentRequirements): number;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createPaymentEngine(config: PayConfig, options: PaymentEngineOptions = {}): PaymentEngine {
  let ready: Promise<Ready> | undefined;
  // One entry per distinct offer, and offers are fixed at start-up (tools' prices, chat_with_agent's), so this stays small.
  const acceptsByOffer = new Map<string, Promise<PaymentRequirements[]>>();
  let uptoRefusal: string | undefined;

  function load(): Promise<Ready> {
    ready ??= (async () => {
      const [{ x402ResourceServer, HTTPFacilitatorClient }, { ExactEvmScheme }, { UptoEvmScheme }] = await Promise.all([
        import('@x402/core/server'),
        import('@x402/evm/exact/server'),
        import('@x402/evm/upto/server'),
      ]);
      const facilitator = options.facilitator ?? new HTTPFacilitatorClient({ url: config.facilitatorUrl, timeoutMs: FACILITATOR_TIMEOUT_MS });
      const upto = new UptoEvmScheme();
      const server = new x402ResourceServer(facilitator).register(config.network, new ExactEvmScheme()).register(config.network, upto);
      await server.initialize();
      const decimalsOf = (requirements: PaymentRequirements) => upto.getAssetDecimals(requirements.asset, requirements.network) ?? FALLBACK_DECIMALS;
      return { server, facilitator, decimalsOf };
    })();
    ready.catch(() => (ready = undefined));
    return ready;
  }

  async function build(offer: Offer): Promise<PaymentRequirements[]> {
    const { server } = await load();
    const base = { network: config.network, payTo: config.payTo, maxTimeoutSeconds: config.maxTimeoutSeconds };
    const exact = await server.buildPaymentRequirements({ ...base, scheme: 'exact', price: offer.price });
    if (!offer.tokens) return exact;
    try {
      return [...exact, ...await server.buildPaymentRequirements({ ...base, scheme: 'upto', price: offer.tokens.max })];
    } catch (error) {
      // A facilitator without `upto` still takes `exact`: the call is offered at its fixed price, and the operator told once.
      if (uptoRefusal === undefined) console.error(`[agent-mcp] x402: the facilitator does not take "upto" payments, so calls are offered at their fixed price only: ${uptoRefusal = messageOf(error)}`);
      return exact;
    }
  }

  function acceptsFor(offer: Offer): Promise<PaymentRequirements[]> {
    const key = JSON.stringify([offer.price, offer.tokens?.max ?? null]);
    let accepts = acceptsByOffer.get(key);
    if (!accepts) {
      accepts = build(offer);
      acceptsByOffer.set(key, accepts);
      accepts.catch(() => acceptsByOffer.delete(key));
    }
    return accepts;
  }

  return {
    config,
    async paymentRequired(resource, error, offer) {
      const [{ server }, accepts] = await Promise.all([load(), acceptsFor(offer)]);
      return server.createPaymentRequiredResponse(accepts, resource, error);
    },

    async decimalsOf(requirements) {
      return (await load()).decimalsOf(requirements);
    },

    async verify(payload, resource, offer) {
      let loaded: Ready;
      let accepts: PaymentRequirements[];
      try {
        [loaded, accepts] = await Promise.all([load(), acceptsFor(offer)]);
      } catch (error) {
        return { kind: 'unavailable', reason: messageOf(error) };
      }
      const requirements = isV1(payload)
        ? await v1RequirementsFor(accepts, payload, resource)
        : loaded.server.findMatchingRequirements(accepts, payload);
      if (!requirements) return { kind: 'refused', reason: 'No matching payment requirements found' };
      try {
        // The resource server registers v2 networks only; a v1 payment goes to the facilitator as is (x402Version 1).
        const result = isV1(payload)
          ? await loaded.facilitator.verify(payload as never, requirements as never)
          : await loaded.server.verifyPayment(payload, requirements as PaymentRequirements);
        if (!result.isValid) return { kind: 'refused', reason: result.invalidReason ?? result.invalidMessage ?? 'Payment verification failed' };
        return { kind: 'verified', requirements, payer: result.payer };
      } catch (error) {
        // A facilitator that answered with a verdict raises VerifyError; anything else means it was not reached.
        const verdict = (error as { invalidReason?: string }).invalidReason;
        return verdict ? { kind: 'refused', reason: verdict } : { kind: 'unavailable', reason: messageOf(error) };
      }
    },

    async settle(payload, requirements, amount) {
      try {
        const { server, facilitator } = await load();
        // The amount settled is ours to say and the facilitator checks it against what the payer signed (upto).
        const overrides = amount === undefined ? undefined : { amount: amount.toString() };
        const receipt = isV1(payload)
          ? await facilitator.settle(payload as never, requirements as never)
          : await server.settlePayment(payload, requirements as PaymentRequirements, undefined, undefined, overrides);
        if (!receipt.success) return { kind: 'failed', reason: receipt.errorReason ?? receipt.errorMessage ?? 'settlement failed', receipt };
        return { kind: 'settled', receipt };
      } catch (error) {
        const reason = (error as { errorReason?: string }).errorReason;
        return { kind: 'failed', reason: reason ?? messageOf(error) };
      }
    },
  };
}
