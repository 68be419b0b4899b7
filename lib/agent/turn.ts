/**
 * A chat call's store traffic: one `enter` (retry claim, queue ticket and history read together) before the
 * agent runs and one `leave` (history, result and releases together) after it, so a call costs two round
 * trips however it goes; waiting, when there is any, goes through the instance-wide watcher (store/watch.ts).
 *
 * Retry safety: an identical call (same caller, id and arguments) that arrives while the first runs, or within
 * RESULT_TTL_MS after it succeeded, gets the first call's result; the work runs once. A failed or cancelled
 * call is not remembered: a waiting or later retry runs again (a client often retries because it gave up on,
 * and cancelled, the first attempt).
 *
 * Turn order: calls to one conversation run one at a time, in arrival order, across instances: each takes a
 * ticket and waits until the ticket before it has ended (store/types.ts TurnKeys). A turn whose end is never
 * written (its instance died, the store was down as it left) is waited for only until its deadline, `turnMs`
 * past its own wait, and holds up nothing after the next turn; an end the store refused is written again in
 * the background once the store answers (late-release.ts), so the next turn usually need not wait that long.
 *
 * Room first: a store that keeps budgets (memory) holds the room the call's writes will need in the same `enter`,
 * before the work runs, so a store with no room refuses the call before its agent is asked, not after (and the
 * `leave` lets the room go as it writes).
 */

import { StoreUnavailableError, type EnterRequest, type LeaveRequest, type Put, type Reservation, type Store, type TurnKeys } from '../store/types.js';
import { signalOf, type SignalSource } from '../server/cancellation.js';
import { releaseLater } from './late-release.js';

export const RESULT_TTL_MS = 60_000;

export interface TurnOptions<T> {
  store: Store;
  /** The call's cancellation; its AbortSignal is asked for only by a call that waits. */
  signal: SignalSource;
  /** Retry coordination under this key. */
  once?: {
    key: string;
    /** How long the first call may hold its claim before others may take over (a crashed instance). */
    claimTtlMs: number;
    succeeded(value: T): boolean;
    /** Called on a joiner when it starts waiting for an identical call. */
    onJoin?(): void;
  };
  /**
   * Turn order under this key. `turnMs`: the longest one turn may take (AGENT_TURN_TIMEOUT_MS and a margin), which is
   * also the longest the next turn waits for it.
   */
  queue?: { key: string; turnMs: number; onWait?(ahead: number): void };
  /** Values the call reads before it runs (its conversation's history). */
  read?: string[];
  /** Room to hold for the call's writes before it runs (store/types.ts Reservation); only a `budgeted` store holds it. */
  reserve?: Reservation;
}

/** What a call hands back: its value and what to write with its release. */
export interface Ran<T> {
  value: T;
  writes?: Put[];
}

interface Outcome<T> {
  value: T;
}

/** The store keys of the turn queue under `key` (store/types.ts TurnKeys). */
export const turnKeysOf = (key: string): TurnKeys => ({ queue: `queue:${key}`, done: `queue-done:${key}` });

/** Read, never written: a call that reads nothing, or writes nothing. */
const NOTHING: string[] = [];
const NO_WRITES: Put[] = [];

export async function runTurn<T>(options: TurnOptions<T>, run: (values: unknown[]) => Promise<Ran<T>>): Promise<T> {
  const { store, signal, once, queue, read = NOTHING } = options;
  const reserve = store.budgeted ? options.reserve : undefined;
  const result = once && `once-result:${once.key}`;
  const claim = once && `once-claim:${once.key}`;
  const turn = queue && turnKeysOf(queue.key);

  let joined = false;
  let values: unknown[] = [];
  let ticket: number | undefined;
  let done = 0;
  let waitMs = 0;
  // When this call's claim and ticket started to live (at most): their expiries count from the store's enter.
  let enteredAt = Date.now();
  // A call with nothing to claim, queue, read or hold (a new conversation of an unrecognised caller, on Upstash) skips `enter`.
  if (once || turn || read.length || reserve) {
    const request: EnterRequest = {};
    if (once) request.once = { result: result!, claim: claim!, ttlMs: once.claimTtlMs };
    if (turn) request.turn = { queue: turn.queue, done: turn.done, turnMs: queue!.turnMs };
    request.read = read;
    if (reserve) request.reserve = reserve;
    for (;;) {
      enteredAt = Date.now();
      const entered = await store.enter(request);
      if (entered.result !== undefined) return (entered.result as Outcome<T>).value;
      if (entered.claimed) {
        ({ ticket, done = 0, waitMs = 0 } = entered);
        values = entered.values ?? [];
        break;
      }
      if (!joined) {
        joined = true;
        once!.onJoin?.();
      }
      // The first call's result, or its claim gone without one (then we try to claim).
      const aborted = signalOf(signal);
      const seen = await store.watch([result!, claim!], ([r, c]) => r !== undefined || c === undefined, { signal: aborted, timeoutMs: once!.claimTtlMs });
      if (seen?.[0] !== undefined) return (seen[0] as Outcome<T>).value;
      if (aborted.aborted) throw aborted.reason ?? new Error('aborted');
    }
  }

  let outcome: Ran<T> | undefined;
  try {
    if (turn && ticket !== undefined && waitMs > 0) {
      queue!.onWait?.(ticket - 1 - done);
      const before = ticket - 1;
      await store.watch([turn.done], ([d]) => Number(d ?? 0) >= before, { signal: signalOf(signal), timeoutMs: waitMs });
      // The earlier turns changed what this one reads.
      if (read.length) values = await store.getMany(read);
    }
    outcome = await run(values);
    return outcome.value;
  } finally {
    const writes = outcome?.writes ?? NO_WRITES;
    const set = outcome && once?.succeeded(outcome.value) ? [...writes, { key: result!, value: { value: outcome.value }, ttlMs: RESULT_TTL_MS }] : writes;
    const release: LeaveRequest = {};
    if (claim || reserve) release.delete = [...(claim ? [claim] : []), ...(reserve ? [reserve.key] : [])];
    if (turn && ticket !== undefined) release.turn = { queue: turn.queue, done: turn.done, ticket };
    if (set.length || release.delete || release.turn) {
      // A release written after its claim or ticket expired could end a later call's claim or turn: retry until then only
      // (a reservation expires by itself too).
      const until = enteredAt + Math.min(once ? once.claimTtlMs : Infinity, queue ? waitMs + queue.turnMs : Infinity, reserve ? reserve.ttlMs : Infinity);
      await leave(store, { set, delete: release.delete, turn: release.turn }, release, until);
    }
  }
}

/**
 * The call's closing writes. When the store refuses them the call fails (its client is told nothing was saved),
 * and its release alone (the claim dropped, the turn ended, none of its writes) is written again later, until
 * `until`: by then the claim and the ticket have expired by themselves.
 */
async function leave(store: Store, request: LeaveRequest, release: LeaveRequest, until: number): Promise<void> {
  try {
    await store.leave(request);
  } catch (error) {
    if (error instanceof StoreUnavailableError && (release.delete || release.turn)) releaseLater(store, release, until);
    throw error;
  }
}
