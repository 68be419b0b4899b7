/**
 * The x402 side of a paid call, on `@x402/core` + `@x402/evm` (exact scheme, EIP-3009), loaded on the first
 * paid call only. Answers are values: verified or refused with the facilitator's reason, settled or not, or
 * `unavailable` when the facilitator cannot be reached (then nothing was charged).
 *
 * The resource server asks the facilitator what it supports once per instance (`initialize`, a round trip),
 * lazily, and forgets a failed attempt so the next call tries again (reference §A6 serverless note).
 */

import type { FacilitatorClient, x402ResourceServer } from '@x402/core/server';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, PaymentRequirementsV1, ResourceInfo, SettleResponse } from '@x402/core/types';
import type { PayConfig } from './config.js';
import type { AnyPaymentPayload } from './payload.js';
import { isV1, v1RequirementsFor } from './v1.js';

/** Facilitator requests give up after this long; a settle that times out is indeterminate (reference §A4). */
const FACILITATOR_TIMEOUT_MS = 30_000;

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
  /** What the client must pay for `resource`, with `error` saying why an attempt was refused. */
  paymentRequired(resource: ResourceInfo, error: string): Promise<PaymentRequired>;
  /** `resource` names the paid call in the v1 requirements a v1 payment is checked against. */
  verify(payload: AnyPaymentPayload, resource: ResourceInfo): Promise<VerifyOutcome>;
  settle(payload: AnyPaymentPayload, requirements: MatchedRequirements): Promise<SettleOutcome>;
}

export interface PaymentEngineOptions {
  /** Any x402 `FacilitatorClient` (tests run the real facilitator logic in-process); HTTP to the URL otherwise. */
  facilitator?: FacilitatorClient;
}

interface Ready {
  server: x402ResourceServer;
  facilitator: FacilitatorClient;
  accepts: PaymentRequirements[];
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createPaymentEngine(config: PayConfig, options: PaymentEngineOptions = {}): PaymentEngine {
  let ready: Promise<Ready> | undefined;

  function load(): Promise<Ready> {
    ready ??= (async () => {
      const [{ x402ResourceServer, HTTPFacilitatorClient }, { ExactEvmScheme }] = await Promise.all([
        import('@x402/core/server'),
        import('@x402/evm/exact/server'),
      ]);
      const facilitator = options.facilitator ?? new HTTPFacilitatorClient({ url: config.facilitatorUrl, timeoutMs: FACILITATOR_TIMEOUT_MS });
      const server = new x402ResourceServer(facilitator).register(config.network, new ExactEvmScheme());
      await server.initialize();
      const accepts = await server.buildPaymentRequirements({
        scheme: 'exact', network: config.network, payTo: config.payTo, price: config.price, maxTimeoutSeconds: config.maxTimeoutSeconds,
      });
      return { server, facilitator, accepts };
    })();
    ready.catch(() => (ready = undefined));
    return ready;
  }

  return {
    config,
    async paymentRequired(resource, error) {
      const { server, accepts } = await load();
      return server.createPaymentRequiredResponse(accepts, resource, error);
    },

    async verify(payload, resource) {
      let loaded: Ready;
      try {
        loaded = await load();
      } catch (error) {
        return { kind: 'unavailable', reason: messageOf(error) };
      }
      const requirements = isV1(payload)
        ? await v1RequirementsFor(loaded.accepts, payload, resource)
        : loaded.server.findMatchingRequirements(loaded.accepts, payload);
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

    async settle(payload, requirements) {
      try {
        const { server, facilitator } = await load();
        const receipt = isV1(payload)
          ? await facilitator.settle(payload as never, requirements as never)
          : await server.settlePayment(payload, requirements as PaymentRequirements);
        if (!receipt.success) return { kind: 'failed', reason: receipt.errorReason ?? receipt.errorMessage ?? 'settlement failed', receipt };
        return { kind: 'settled', receipt };
      } catch (error) {
        const reason = (error as { errorReason?: string }).errorReason;
        return { kind: 'failed', reason: reason ?? messageOf(error) };
      }
    },
  };
}
