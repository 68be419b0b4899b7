/**
 * Calls to one conversation run one at a time, in arrival order, across instances: each call takes a ticket
 * (its position in a store list) and waits until every earlier ticket is done. A holder that dies is waited
 * for at most `maxWaitMs`, so a crashed instance cannot stall a session for good.
 */

import type { Store } from '../store/types.js';

const QUEUE_TTL_MS = 30 * 60_000;
const POLL_MS = 1_000;

export async function inSessionOrder<T>(
  store: Store,
  key: string,
  options: { signal: AbortSignal; maxWaitMs: number; onWait?(ahead: number): void },
  run: () => Promise<T>,
): Promise<T> {
  const queueKey = `queue:${key}`;
  const doneKey = `queue-done:${key}`;
  const ticket = await store.append(queueKey, 1, QUEUE_TTL_MS);
  const deadline = Date.now() + options.maxWaitMs;
  let told = false;
  for (;;) {
    const done = (await store.range(doneKey, 0)).length;
    const ahead = ticket - 1 - done;
    if (ahead <= 0 || Date.now() >= deadline || options.signal.aborted) break;
    if (!told) {
      told = true;
      options.onWait?.(ahead);
    }
    await store.waitForWrite(doneKey, { signal: options.signal, timeoutMs: Math.min(POLL_MS, deadline - Date.now()) });
  }
  try {
    return await run();
  } finally {
    await store.append(doneKey, 1, QUEUE_TTL_MS);
  }
}
