/**
 * Refusals waiting to be counted (counter.ts). A refused request often costs the shared store nothing (a caller the
 * rate limiter's cache already knows to be blocked, a request without a valid token); counting each one with a
 * command of its own would let a flood of refused requests cost a command each. So an instance on a shared store
 * holds its refusals, summed per minute and reason, and they go with its next counted call's tally (no command more)
 * or within FLUSH_MS.
 */

import type { Tally } from '../store/types.js';
import { bucketStart, RESOLUTIONS } from './buckets.js';
import { talliesOf } from './record.js';

/** The longest an instance holds refusals before writing them on their own. */
export const FLUSH_MS = 10_000;

export class HeldRefusals {
  /** Minute bucket start (epoch seconds) → reason → count. */
  readonly #byMinute = new Map<number, Map<string, number>>();

  get empty(): boolean {
    return this.#byMinute.size === 0;
  }

  add(reasons: string[], now: number): void {
    const minute = bucketStart(RESOLUTIONS[0]!, now);
    let counts = this.#byMinute.get(minute);
    if (!counts) this.#byMinute.set(minute, (counts = new Map()));
    for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }

  /** The tallies of every refusal held, each in the buckets of the minute it happened; nothing is held after. */
  take(): Tally[] {
    const tallies = [...this.#byMinute].flatMap(([minute, counts]) =>
      talliesOf([...counts].map(([reason, count]) => ({ kind: 'refusal' as const, reason, count })), undefined, minute * 1000));
    this.#byMinute.clear();
    return tallies;
  }
}
