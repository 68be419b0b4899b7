/**
 * One payment, one settlement, across instances. An EIP-3009 authorization is identified by its payer and
 * nonce (the token contract accepts each once; EIP-3009 §transferWithAuthorization). The first paid result is
 * kept in the store under that id, so a replayed payment gets that result back and is never verified or
 * settled again; uses of one payment at the same time are serialised by a claim in the store.
 *
 * Both are security records (store/types.ts StoreBudget): no other caller's writes can evict them before they
 * expire. The record goes in before the payment is settled, marked `settling`, so a payment the store cannot
 * record is never settled; replays wait while a record is settling, as they wait on the claim.
 */

import { sha256Hex } from '../digest.js';
import type { Store } from '../store/types.js';
import type { AnyPaymentPayload } from './payload.js';
import { caipNetworkOf, isV1 } from './v1.js';

/** What a settled payment bought: the result (a tool's, a read's, a prompt's), bound to the call it paid for. */
export interface PaidRecord {
  fingerprint: string;
  result: unknown;
  /** Set from just before settlement until the settled record replaces it. */
  settling?: true;
}

export type Claim = { kind: 'claimed' } | { kind: 'recorded'; record: PaidRecord } | { kind: 'busy' };

/** A claim outlives the longest call (15 min), so a crashed instance frees the payment eventually. */
const CLAIM_TTL_MS = 15 * 60_000;
/** Long enough for any retry; the authorization itself expires within X402 maxTimeoutSeconds. */
const RECORD_TTL_MS = 24 * 60 * 60_000;

const recordKey = (id: string) => `x402:paid:${id}`;
const claimKey = (id: string) => `x402:claim:${id}`;
const recordsIn = (store: Store) => store.withBudget('security');

/**
 * The longest payment id kept as it is. Payer and nonce are the client's strings: a longer id is keyed by its
 * digest (`digest:<sha256>`, one colon, where every id kept as it is has at least two), so no payload makes the
 * record's key, or the watcher's read of it, large (docs/architecture.md rule 8).
 */
const MAX_ID_CHARS = 256;

const isSettled = (record: unknown): record is PaidRecord => record !== undefined && (record as PaidRecord).settling !== true;

/** SHA-256 of the JSON of `parts`, hex. */
export async function fingerprintOf(parts: unknown): Promise<string> {
  return sha256Hex(JSON.stringify(parts));
}

/**
 * The payment's on-chain identity: chain, payer and nonce of its authorization, EIP-3009 or Permit2 (or its signature's hash). The
 * chain is the CAIP-2 id whatever the version, since one signed authorization can travel as a v1 or a v2 payload.
 */
export async function paymentIdOf(payload: AnyPaymentPayload): Promise<string> {
  const network = (await caipNetworkOf(payload)) ?? (isV1(payload) ? `x402v1:${payload.network}` : 'unknown');
  // Permit2 (upto) nonces are the payer's at the Permit2 contract, a space apart from the token's EIP-3009 nonces.
  const permit2 = payload.payload.permit2Authorization as { from?: unknown; nonce?: unknown } | undefined;
  const authorization = (payload.payload.authorization ?? permit2) as { from?: unknown; nonce?: unknown } | undefined;
  const space = payload.payload.authorization === undefined && permit2 !== undefined ? 'permit2:' : '';
  const id = typeof authorization?.from === 'string' && typeof authorization.nonce === 'string'
    ? `${network}:${space}${authorization.from}:${authorization.nonce}`.toLowerCase()
    : `${network}:sig:${await fingerprintOf(payload.payload)}`;
  return id.length > MAX_ID_CHARS ? `digest:${await sha256Hex(id)}` : id;
}

/** Takes the payment for this call, or returns what its earlier use recorded; waits while another call holds it. */
export async function claimPayment(store: Store, id: string, signal: AbortSignal): Promise<Claim> {
  const records = recordsIn(store);
  const deadline = Date.now() + CLAIM_TTL_MS;
  const keys = { result: recordKey(id), claim: claimKey(id) };
  for (;;) {
    // The record, or the claim when nobody holds it: one round trip.
    const entered = await records.enter({ once: { ...keys, ttlMs: CLAIM_TTL_MS } });
    if (entered.claimed) return { kind: 'claimed' };
    if (isSettled(entered.result)) return { kind: 'recorded', record: entered.result };
    // Another call holds the payment: its claim, or a record it has not settled yet.
    const seen = await records.watch([keys.result, keys.claim], ([record, claim]) => isSettled(record) || claim === undefined, {
      signal,
      timeoutMs: deadline - Date.now(),
    });
    if (seen === undefined) return { kind: 'busy' };
    if (isSettled(seen[0])) return { kind: 'recorded', record: seen[0] };
    // The claim went and the record is still settling: that call stopped between settling and saying so. The
    // chain may have taken the payment, so the result it paid for is the payer's.
    if (seen[0] !== undefined) return { kind: 'recorded', record: seen[0] as PaidRecord };
  }
}

/**
 * Records the result before the payment is settled: a StoreUnavailableError (a full store's StoreFullError
 * among them) means the payment must not be settled, since a replay of it could not be answered.
 */
export async function recordSettling(store: Store, id: string, fingerprint: string, result: unknown): Promise<void> {
  await recordsIn(store).set(recordKey(id), { fingerprint, result, settling: true } satisfies PaidRecord, RECORD_TTL_MS);
}

/** The settled record, in place of the settling one. */
export async function recordPaid(store: Store, id: string, record: PaidRecord): Promise<void> {
  await recordsIn(store).set(recordKey(id), record, RECORD_TTL_MS);
}

/** Removes the record of a payment whose settlement failed: a replay of it is verified afresh. */
export async function forgetPaid(store: Store, id: string): Promise<void> {
  await store.delete(recordKey(id));
}

export async function releasePayment(store: Store, id: string): Promise<void> {
  await store.delete(claimKey(id));
}
