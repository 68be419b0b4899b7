/**
 * The refusals of a rate limit. Over the limit: 429 with `Retry-After` (RFC 9110 §10.2.3) and the IETF draft
 * fields `RateLimit-Policy` / `RateLimit` (draft-ietf-httpapi-ratelimit-headers-09 §3, §4: a quoted policy
 * name with `q` quota and `w` window, and `r` remaining with `t` seconds to reset), plus a JSON-RPC error a
 * model can read. The limit is checked before the body is read, so the error's id is null (JSON-RPC 2.0 §5).
 */

import { H_RATELIMIT, H_RATELIMIT_POLICY, H_RETRY_AFTER } from '../protocol/headers.js';
import { RATE_LIMITED, RATE_LIMITED_MESSAGE } from '../protocol/errors.js';
import { errorReply, refuse } from '../http/replies.js';
import type { ChargeRefusal, ToolLimitRefusal } from '../server/context.js';
import type { Rate } from './rate.js';

export type LimitScope = 'ip' | 'principal' | 'key';

const SCOPE_WORDS: Record<LimitScope, string> = { ip: 'per IP address', principal: 'per caller', key: 'for this API key' };
/** The variable that sets each limit, named when work a request sets off is refused. */
const SCOPE_VARIABLE: Record<LimitScope, string> = { ip: 'RATE_LIMIT_IP', principal: 'RATE_LIMIT_PRINCIPAL', key: 'MCP_API_KEYS' };
const UNAVAILABLE = 'the rate limiter cannot be reached';

/** Seconds until `reset`, at least 1 (a 0 would invite an immediate retry that fails again). */
export function secondsUntil(reset: number, now: number): number {
  return Math.max(1, Math.ceil((reset - now) / 1000));
}

/** "at most 60 requests per caller every minute. Retry after 12 s." */
function limitSentence(scope: LimitScope, rate: Rate, retryAfter: number): string {
  return `at most ${rate.limit} request${rate.limit === 1 ? '' : 's'} ${SCOPE_WORDS[scope]} every ${describeWindow(rate.windowMs)}. Retry after ${retryAfter} s.`;
}

export function tooManyRequests(scope: LimitScope, rate: Rate, reset: number, now = Date.now()): Response {
  const retryAfter = secondsUntil(reset, now);
  const message = `${RATE_LIMITED_MESSAGE}: ${limitSentence(scope, rate, retryAfter)}`;
  return errorReply(429, {
    code: RATE_LIMITED,
    message,
    data: { scope, limit: rate.limit, windowSeconds: rate.windowMs / 1000, retryAfterSeconds: retryAfter },
  }, null, {
    [H_RETRY_AFTER]: String(retryAfter),
    [H_RATELIMIT_POLICY]: `"${scope}";q=${rate.limit};w=${Math.ceil(rate.windowMs / 1000)}`,
    [H_RATELIMIT]: `"${scope}";r=0;t=${retryAfter}`,
    'cache-control': 'no-store',
  });
}

/** The fail-closed answer when the limiter cannot decide (RATE_LIMIT_ON_ERROR=closed). */
export function limitUnavailable(): Response {
  return refuse(503, `Service unavailable: ${UNAVAILABLE}; try again shortly.`, { [H_RETRY_AFTER]: '1' });
}

/** The same refusals for work a request sets off (a nested agent turn): the variable, and a clause a model reads. */
export function overLimit(scope: LimitScope, rate: Rate, reset: number, now = Date.now()): ChargeRefusal {
  const variable = SCOPE_VARIABLE[scope];
  return { variable, reason: `the caller is over its rate limit (${variable}): ${limitSentence(scope, rate, secondsUntil(reset, now))}` };
}

export function overLimitUnavailable(): ChargeRefusal {
  return { variable: 'RATE_LIMIT_ON_ERROR', reason: `${UNAVAILABLE} (RATE_LIMIT_ON_ERROR=closed).` };
}

/**
 * A call over a per-tool limit (RATE_LIMIT_TOOLS), answered as a tool result (lib/server/methods/tools.ts): "Rate
 * limit exceeded: at most 10 calls of chat_with_agent per caller every minute. Retry after 12 s." A pattern with `*`
 * is named as such ("of tools matching research.*"), since its calls share one budget.
 */
export function overToolLimit(pattern: string, scope: LimitScope, rate: Rate, reset: number, now = Date.now()): ToolLimitRefusal {
  const retryAfterSeconds = secondsUntil(reset, now);
  const tools = pattern.includes('*') ? `tools matching ${pattern}` : pattern;
  const calls = `${rate.limit} call${rate.limit === 1 ? '' : 's'} of ${tools}`;
  return {
    message: `${RATE_LIMITED_MESSAGE}: at most ${calls} ${SCOPE_WORDS[scope]} every ${describeWindow(rate.windowMs)}. Retry after ${retryAfterSeconds} s.`,
    retryAfterSeconds,
  };
}

/** The fail-closed answer of a per-tool limit that cannot be checked (RATE_LIMIT_ON_ERROR=closed). */
export function toolLimitUnavailable(): ToolLimitRefusal {
  return { message: `The tool was not called: ${UNAVAILABLE}; try again shortly.`, retryAfterSeconds: 1 };
}

/** `day`, `2 hours`, `30 seconds`: a window as a sentence says it. */
export function describeWindow(ms: number): string {
  for (const [unit, size] of [['day', 86_400_000], ['hour', 3_600_000], ['minute', 60_000]] as const) {
    if (ms % size === 0) return ms === size ? unit : `${ms / size} ${unit}s`;
  }
  return ms === 1000 ? 'second' : `${ms / 1000} seconds`;
}
