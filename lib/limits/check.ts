/**
 * One limit as a step of the request path: count the request, answer 429 when over, and apply the failure
 * policy when the limiter cannot decide (README "Rate limits"): `open` lets the request through with a
 * warning in the log, `closed` answers 503.
 */

import { createCountedWarning } from '../warn.js';
import { limitUnavailable, tooManyRequests, type LimitScope } from './reply.js';
import type { Rate } from './rate.js';
import type { Limiter } from './types.js';

export type FailurePolicy = 'open' | 'closed';

/** A check of `cost` requests (default 1) of one identifier: a refusal to send, or undefined to go on. */
export type LimitCheck = (identifier: string, cost?: number) => Promise<Response | undefined>;

export function createLimitCheck(scope: LimitScope, rate: Rate, limiter: Limiter, policy: FailurePolicy): LimitCheck {
  // Logged at once, then at most once a minute with a count, so fail-open admissions are visible, not flooding.
  const action = policy === 'open' ? 'letting requests through (RATE_LIMIT_ON_ERROR=open)' : 'refusing requests with 503 (RATE_LIMIT_ON_ERROR=closed)';
  const done = policy === 'open' ? 'admitted unchecked' : 'refused';
  const unchecked = createCountedWarning((reason, count) =>
    `the ${scope} rate limit could not be checked (${reason}); ${action}: ${count} request${count === 1 ? '' : 's'} ${done} since the last report.`);
  return async (identifier, cost = 1) => {
    const outcome = await limiter.limit(identifier, cost);
    if (outcome.kind === 'allowed') return undefined;
    if (outcome.kind === 'denied') return tooManyRequests(scope, rate, outcome.reset);
    unchecked.note(outcome.reason);
    return policy === 'open' ? undefined : limitUnavailable();
  };
}

/**
 * The caller's IP address. On Vercel the edge sets `x-real-ip` and overwrites `x-forwarded-for`, so those are
 * trusted there; elsewhere a client could forge them, so the socket address (srvx's `request.ip`) is used.
 */
export function clientIp(request: Request, trustForwarded: boolean): string {
  if (trustForwarded) {
    const forwarded = request.headers.get('x-real-ip') ?? request.headers.get('x-forwarded-for')?.split(',')[0];
    if (forwarded?.trim()) return forwarded.trim();
  }
  return (request as Request & { ip?: string }).ip ?? 'unknown';
}
