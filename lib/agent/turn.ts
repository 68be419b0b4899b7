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
 * ticket and waits until every earlier ticket is done. A holder that dies is waited for at most `maxWaitMs`,
 * so a crashed instance cannot stall a conversation for good.
 */

import type { Put, Store, TurnKeys } from '../store/types.js';

export const RESULT_TTL_MS = 60_000;
const QUEUE_TTL_MS = 30 * 60_000;

export interface TurnOptions<T> {
  store: Store;
  signal: AbortSignal;
  /** Retry coordination under this key. */
  once?: {
    key: string;
    /** How long the first call may hold its claim before others may take over (a crashed instance). */
    claimTtlMs: number;
    succeeded(value: T): boolean;
    /** Called on a joiner when it starts waiting for an identical call. */
    onJoin?(): void;
  };
  /** Turn order under this key. */
  queue?: { key: string; maxWaitMs: number; onWait?(ahead: number): void };
  /** Values the call reads before it runs (its conversation's history). */
  read?: string[];
}

/** What a call hands back: its value and what to write with its release. */
export interface Ran<T> {
  value: T;
  writes?: Put[];
}

interface Outcome<T> {
  value: T;
}

export async function runTurn<T>(options: TurnOptions<T>, run: (values: unknown[]) => Promise<Ran<T>>): Promise<T> {
  const { store, signal, once, queue, read = [] } = options;
  const result = once && `once-result:${once.key}`;
  const claim = once && `once-claim:${once.key}`;
  const turn: TurnKeys | undefined = queue && { queue: `queue:${queue.key}`, done: `queue-done:${queue.key}`, ttlMs: QUEUE_TTL_MS };
  const request = {
    ...(once ? { once: { result: result!, claim: claim!, ttlMs: once.claimTtlMs } } : {}),
    ...(turn ? { turn } : {}),
    read,
  };

  let joined = false;
  let values: unknown[] = [];
  let ticket: number | undefined;
  let done = 0;
  // A call with nothing to claim, queue or read (a new conversation of an unrecognised caller) skips `enter`.
  if (once || turn || read.length) {
    for (;;) {
      const entered = await store.enter(request);
      if (entered.result !== undefined) return (entered.result as Outcome<T>).value;
      if (entered.claimed) {
        ({ ticket, done = 0 } = entered);
        values = entered.values ?? [];
        break;
      }
      if (!joined) {
        joined = true;
        once!.onJoin?.();
      }
      // The first call's result, or its claim gone without one (then we try to claim).
      const seen = await store.watch([result!, claim!], ([r, c]) => r !== undefined || c === undefined, { signal, timeoutMs: once!.claimTtlMs });
      if (seen?.[0] !== undefined) return (seen[0] as Outcome<T>).value;
      if (signal.aborted) throw signal.reason ?? new Error('aborted');
    }
  }

  let outcome: Ran<T> | undefined;
  try {
    if (turn && ticket !== undefined && ticket - 1 > done) {
      queue!.onWait?.(ticket - 1 - done);
      const before = ticket - 1;
      await store.watch([turn.done], ([d]) => Number(d ?? 0) >= before, { signal, timeoutMs: queue!.maxWaitMs });
      // The earlier turns changed what this one reads.
      if (read.length) values = await store.getMany(read);
    }
    outcome = await run(values);
    return outcome.value;
  } finally {
    const keep = outcome && once?.succeeded(outcome.value);
    const set = [...(outcome?.writes ?? []), ...(keep ? [{ key: result!, value: { value: outcome!.value }, ttlMs: RESULT_TTL_MS }] : [])];
    if (set.length || claim || turn) await store.leave({ set, ...(claim ? { delete: [claim] } : {}), ...(turn ? { turn } : {}) });
  }
}
