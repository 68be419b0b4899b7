/**
 * Retry safety: an identical call (same principal, agent, session and message) that arrives while the
 * first runs, or within RESULT_TTL_MS after it succeeded, gets the first call's result; the work runs once.
 * Coordination goes through the store, so it holds across instances once the store is shared.
 * A failed or cancelled call is not remembered: a waiting or later retry runs again (a client often
 * retries because it gave up on, and cancelled, the first attempt).
 */

import type { Store } from '../store/types.js';

export const RESULT_TTL_MS = 60_000;
const POLL_MS = 1_000;

export interface OnceOptions<T> {
  store: Store;
  key: string;
  /** How long the first call may hold its claim before others may take over (a crashed instance). */
  claimTtlMs: number;
  signal: AbortSignal;
  succeeded(value: T): boolean;
  /** Called on a joiner when it starts waiting for an identical call. */
  onJoin?(): void;
}

interface Outcome<T> {
  value: T;
}

export async function runOnce<T>(options: OnceOptions<T>, run: () => Promise<T>): Promise<T> {
  const { store, key, signal } = options;
  const resultKey = `once-result:${key}`;
  const claimKey = `once-claim:${key}`;
  let joined = false;
  for (;;) {
    const settled = await store.get<Outcome<T>>(resultKey);
    if (settled) return settled.value;
    const position = await store.append(claimKey, 1, options.claimTtlMs);
    if (position === 1) return own();
    if (!joined) {
      joined = true;
      options.onJoin?.();
    }
    const outcome = await waitForOutcome();
    if (outcome) return outcome.value;
    if (signal.aborted) throw signal.reason ?? new Error('aborted');
  }

  async function own(): Promise<T> {
    let value: T;
    try {
      value = await run();
      if (options.succeeded(value)) await store.set(resultKey, { value }, RESULT_TTL_MS);
      return value;
    } finally {
      await store.delete(claimKey);
    }
  }

  /** The first call's result, or undefined when its claim ended without one (then we try to claim). */
  async function waitForOutcome(): Promise<Outcome<T> | undefined> {
    while (!signal.aborted) {
      const outcome = await store.get<Outcome<T>>(resultKey);
      if (outcome) return outcome;
      if ((await store.range(claimKey, 0)).length === 0) return undefined;
      await store.waitForWrite(resultKey, { signal, timeoutMs: POLL_MS });
    }
    return undefined;
  }
}
