/**
 * One payment, one settlement, across instances. An EIP-3009 authorization is identified by its payer and
 * nonce (the token contract accepts each once; EIP-3009 §transferWithAuthorization). The first paid result is
 * kept in the store under that id, so a replayed payment gets that result back and is never verified or
 * settled again; uses of one payment at the same time are serialised by a claim in the store.
 */

import { sha256Hex } from '../digest.js';
import type { ToolResult } from '../server/registry.js';
import type { Store } from '../store/types.js';
import type { AnyPaymentPayload } from './payload.js';
import { caipNetworkOf, isV1 } from './v1.js';

/** What a settled payment bought: the result, bound to the call it paid for. */
export interface PaidRecord {
  fingerprint: string;
  result: ToolResult;
}

export type Claim = { kind: 'claimed' } | { kind: 'recorded'; record: PaidRecord } | { kind: 'busy' };

/** A claim outlives the longest call (15 min), so a crashed instance frees the payment eventually. */
const CLAIM_TTL_MS = 15 * 60_000;
/** Long enough for any retry; the authorization itself expires within X402 maxTimeoutSeconds. */
const RECORD_TTL_MS = 24 * 60 * 60_000;

const recordKey = (id: string) => `x402:paid:${id}`;
const claimKey = (id: string) => `x402:claim:${id}`;

/** SHA-256 of the JSON of `parts`, hex. */
export async function fingerprintOf(parts: unknown): Promise<string> {
  return sha256Hex(JSON.stringify(parts));
}

/**
 * The payment's on-chain identity: chain, payer and nonce of its authorization (or its signature's hash). The
 * chain is the CAIP-2 id whatever the version, since one signed authorization can travel as a v1 or a v2 payload.
 */
export async function paymentIdOf(payload: AnyPaymentPayload): Promise<string> {
  const network = (await caipNetworkOf(payload)) ?? (isV1(payload) ? `x402v1:${payload.network}` : 'unknown');
  const authorization = payload.payload.authorization as { from?: unknown; nonce?: unknown } | undefined;
  if (typeof authorization?.from === 'string' && typeof authorization.nonce === 'string') {
    return `${network}:${authorization.from}:${authorization.nonce}`.toLowerCase();
  }
  return `${network}:sig:${await fingerprintOf(payload.payload)}`;
}

/** Takes the payment for this call, or returns what its earlier use recorded; waits while another call holds it. */
export async function claimPayment(store: Store, id: string, signal: AbortSignal): Promise<Claim> {
  const deadline = Date.now() + CLAIM_TTL_MS;
  const keys = { result: recordKey(id), claim: claimKey(id) };
  for (;;) {
    // The record, or the claim when nobody holds it: one round trip.
    const entered = await store.enter({ once: { ...keys, ttlMs: CLAIM_TTL_MS } });
    if (entered.result !== undefined) return { kind: 'recorded', record: entered.result as PaidRecord };
    if (entered.claimed) return { kind: 'claimed' };
    const seen = await store.watch([keys.result, keys.claim], ([record, claim]) => record !== undefined || claim === undefined, {
      signal,
      timeoutMs: deadline - Date.now(),
    });
    if (seen === undefined) return { kind: 'busy' };
    if (seen[0] !== undefined) return { kind: 'recorded', record: seen[0] as PaidRecord };
  }
}

export async function recordPaid(store: Store, id: string, record: PaidRecord): Promise<void> {
  await store.set(recordKey(id), record, RECORD_TTL_MS);
}

export async function releasePayment(store: Store, id: string): Promise<void> {
  await store.delete(claimKey(id));
}
