/**
 * One limit as a step of the request path: count the request, answer 429 when over, and apply the failure
 * policy when the limiter cannot decide (README "Rate limits"): `open` lets the request through with a
 * warning in the log, `closed` answers 503.
 */

import { limitUnavailable, tooManyRequests, type LimitScope } from './reply.js';
import type { Rate } from './rate.js';
import type { Limiter } from './types.js';

export type FailurePolicy = 'open' | 'closed';

/** A check of one identifier: a refusal to send, or undefined to go on. */
export type LimitCheck = (identifier: string) => Promise<Response | undefined>;

/** Warnings about an unreachable limiter are logged at most once a minute per check, not once per request. */
const WARN_EVERY_MS = 60_000;

export function createLimitCheck(scope: LimitScope, rate: Rate, limiter: Limiter, policy: FailurePolicy): LimitCheck {
  let lastWarning = -Infinity;
  return async (identifier) => {
    const outcome = await limiter.limit(identifier);
    if (outcome.kind === 'allowed') return undefined;
    if (outcome.kind === 'denied') return tooManyRequests(scope, rate, outcome.reset);
    if (Date.now() - lastWarning >= WARN_EVERY_MS) {
      lastWarning = Date.now();
      const action = policy === 'open' ? 'letting requests through (RATE_LIMIT_ON_ERROR=open)' : 'refusing requests with 503 (RATE_LIMIT_ON_ERROR=closed)';
      console.warn(`[agent-mcp] the ${scope} rate limit could not be checked (${outcome.reason}); ${action}.`);
    }
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
