/**
 * The one narrow interface every limiter implements. Answers are plain values: a limiter never throws for
 * an infrastructure fault, it says it could not decide, and the caller applies the failure policy.
 */

export interface LimitCount {
  limit: number;
  remaining: number;
  /** When the current window ends (Unix ms). */
  reset: number;
}

export type LimitOutcome =
  | ({ kind: 'allowed' } & LimitCount)
  | ({ kind: 'denied' } & LimitCount)
  | { kind: 'unavailable'; reason: string };

export interface Limiter {
  /**
   * Counts `cost` requests (default 1; a legacy batch's further messages) for `identifier` and says whether they
   * are within the limit. A denied count may still use up the rest of the window's budget.
   */
  limit(identifier: string, cost?: number): Promise<LimitOutcome>;
}
