/**
 * A call's release that the store refused (it was down or stalled as the call ended), written again in the
 * background: a store that comes back then finds the retry claim dropped and the turn ended, so a retry of the
 * call and the conversation's next turn go on at once instead of waiting for the claim and the ticket to expire.
 *
 * A release is idempotent (dropping a claim, raising `done` to a ticket), so writing it again after a write that
 * did land but whose answer was lost changes nothing. Bounded: tries at growing pauses until the claim and the
 * ticket would have expired by themselves (at most the call's own bound; later, the same ticket number may
 * belong to a new queue), and at most MAX_PENDING releases per instance at once (past it, a release is left to
 * expire, which is slower, never wrong).
 */

import { keepAlive } from '../http/keep-alive.js';
import type { LeaveRequest, Store } from '../store/types.js';
import { createCountedWarning } from '../warn.js';

const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 5_000;
/** Releases this instance writes again at once, at most. */
export const MAX_PENDING = 1_000;

let pending = 0;

/** node:timers/promises loads on the first release written again, not on every cold start (~0.1 ms there). */
const sleep = (ms: number) => process.getBuiltinModule('node:timers/promises').setTimeout(ms, undefined, { ref: false });

const dropped = createCountedWarning((why, count) =>
  `${count} call release${count === 1 ? '' : 's'} the shared store refused could not be written again (${why}); `
  + 'their retry claims and conversation turns were left to expire, so the next turn or retry waited for that.');

/** Writes `release` again until the store takes it or the time `until` (epoch ms) comes. */
export function releaseLater(store: Store, release: LeaveRequest, until: number): void {
  if (pending >= MAX_PENDING) return dropped.note(`${MAX_PENDING} were already pending`);
  pending += 1;
  keepAlive(retry(store, release, until).finally(() => (pending -= 1)));
}

async function retry(store: Store, release: LeaveRequest, until: number): Promise<void> {
  for (let pause = FIRST_PAUSE_MS; Date.now() + pause < until; pause = Math.min(2 * pause, LONGEST_PAUSE_MS)) {
    // Unref'd (sleep): a pending release never keeps a process from exiting.
    await sleep(pause);
    try {
      return await store.leave(release);
    } catch {
      // Still unavailable: try again after a longer pause.
    }
  }
  dropped.note('the store did not take them before their claims and tickets expired');
}
