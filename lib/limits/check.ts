/**
 * One limit: count the request, refuse when over, and apply the failure policy when the limiter cannot decide
 * (docs/rate-limits.md "Rate limits"): `open` lets the request through with a warning in the log, `closed` refuses. As a step
 * of the request path a refusal is 429 (or 503); as a charge for work a request sets off beyond itself (a nested
 * agent turn, which has no HTTP request of its own) it is a reason the agent that asked reads.
 */

import type { ChargeRefusal } from '../server/context.js';
import { createCountedWarning } from '../warn.js';
import { limitUnavailable, overLimit, overLimitUnavailable, tooManyRequests, type LimitScope } from './refusals.js';
import type { Rate } from './rate.js';
import type { Limiter } from './types.js';

export type FailurePolicy = 'open' | 'closed';

/** Why a count refused: over the limit, or the limiter could not decide and the policy is `closed`. */
export type LimitRefusal = { kind: 'denied'; reset: number } | { kind: 'unavailable' };

/** A count of `cost` requests (default 1) of one identifier: why it is refused, or undefined to go on. */
export type LimitCount = (identifier: string, cost?: number) => Promise<LimitRefusal | undefined>;

/** A check of `cost` requests (default 1) of one identifier: a refusal to send, or undefined to go on. */
export type LimitCheck = (identifier: string, cost?: number) => Promise<Response | undefined>;

/** A limit as the request path's step: the refusal is the HTTP reply. */
export function createLimitCheck(scope: LimitScope, rate: Rate, count: LimitCount): LimitCheck {
  return async (identifier, cost) => {
    const refusal = await count(identifier, cost);
    if (!refusal) return undefined;
    return refusal.kind === 'denied' ? tooManyRequests(scope, rate, refusal.reset) : limitUnavailable();
  };
}

/** A limit as a charge for work a request sets off (a nested agent turn): the refusal is a reason a model reads. */
export function createLimitCharge(scope: LimitScope, rate: Rate, count: LimitCount) {
  return async (identifier: string, cost?: number): Promise<ChargeRefusal | undefined> => {
    const refusal = await count(identifier, cost);
    if (!refusal) return undefined;
    return refusal.kind === 'denied' ? overLimit(scope, rate, refusal.reset) : overLimitUnavailable();
  };
}

/** `scope` names the limit in the log: `ip`, `principal`, or a per-tool limit's `tool "<pattern>"`. */
export function createLimitCount(scope: string, limiter: Limiter, policy: FailurePolicy): LimitCount {
  // Logged at once, then at most once a minute with a count, so fail-open admissions are visible, not flooding.
  const action = policy === 'open' ? 'letting requests through (RATE_LIMIT_ON_ERROR=open)' : 'refusing requests with 503 (RATE_LIMIT_ON_ERROR=closed)';
  const done = policy === 'open' ? 'admitted unchecked' : 'refused';
  const unchecked = createCountedWarning((reason, count) =>
    `the ${scope} rate limit could not be checked (${reason}); ${action}: ${count} request${count === 1 ? '' : 's'} ${done} since the last report.`);
  return async (identifier, cost = 1) => {
    const outcome = await limiter.limit(identifier, cost);
    if (outcome.kind === 'allowed') return undefined;
    if (outcome.kind === 'denied') return { kind: 'denied', reset: outcome.reset };
    unchecked.note(outcome.reason);
    return policy === 'open' ? undefined : { kind: 'unavailable' };
  };
}

/** Whether the forwarded address headers are the client's: on Vercel, whose edge sets them (clientIp). */
export function trustsForwardedAddress(env: Record<string, string | undefined>): boolean {
  return Boolean(env.VERCEL);
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
