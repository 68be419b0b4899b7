/**
 * The shared limiter: `@upstash/ratelimit`'s sliding window on the deployment's Redis, so every instance
 * counts against one budget. One round trip per check (an EVALSHA of the library's script; EVAL once per
 * Redis when the script is not cached yet). Both packages load on the first check.
 *
 * Failure policy input (measured against a closed port; docs/rate-limits.md, on Redis down or slow): the
 * library only fails open on a *slow* answer (its `timeout`); an unreachable Redis makes it throw, after retries of
 * ≈4.3 s by default. So the client here never retries,
 * every request is aborted after LIMIT_TIMEOUT_MS, and the library's timeout is the same: a check adds at
 * most ~1 s, and any fault comes back as `unavailable` for the caller's policy.
 */

import type { Ratelimit } from '@upstash/ratelimit';
import type { Redis } from '@upstash/redis';
import { loadUpstashClient } from '../store/upstash-client.js';
import type { UpstashConfig } from '../store/upstash-config.js';
import type { Rate } from './rate.js';
import type { Limiter, LimitOutcome } from './types.js';

/** The longest a limit check may wait for Redis by default (RATE_LIMIT_TIMEOUT_MS). */
export const LIMIT_TIMEOUT_MS = 1_000;

export interface UpstashLimiterOptions {
  /** Key namespace, e.g. `agent-mcp:rl:ip`. */
  prefix: string;
  /** How long a check waits for Redis before it is `unavailable` (default LIMIT_TIMEOUT_MS). */
  timeoutMs?: number;
  /** A ready client (tests wrap the real one to count round trips); built from `config` otherwise. */
  client?: Pick<Redis, 'evalsha' | 'eval'>;
}

export function createUpstashLimiter(rate: Rate, config: UpstashConfig, options: UpstashLimiterOptions): Limiter {
  const timeoutMs = options.timeoutMs ?? LIMIT_TIMEOUT_MS;
  let ratelimit: Ratelimit | undefined;
  let loading: Promise<Ratelimit> | undefined;

  async function load(): Promise<Ratelimit> {
    const [{ Ratelimit }, redis] = await Promise.all([
      import('@upstash/ratelimit'),
      options.client ?? loadUpstashClient(config, { retries: 0, requestTimeoutMs: timeoutMs }),
    ]);
    // Created once per instance: the library's ephemeral cache of blocked identifiers lives in it.
    return (ratelimit = new Ratelimit({
      redis: redis as Redis,
      limiter: Ratelimit.slidingWindow(rate.limit, `${rate.windowMs} ms`),
      prefix: options.prefix,
      timeout: timeoutMs,
      analytics: false,
      enableTelemetry: false,
    }));
  }

  return {
    async limit(identifier, cost = 1): Promise<LimitOutcome> {
      try {
        const limiter = ratelimit ?? (await (loading ??= load().finally(() => (loading = undefined))));
        const result = await limiter.limit(identifier, cost === 1 ? undefined : { rate: cost });
        if (result.reason === 'timeout') return { kind: 'unavailable', reason: `Redis did not answer within ${timeoutMs} ms` };
        const count = { limit: result.limit, remaining: result.remaining, reset: result.reset };
        return result.success ? { kind: 'allowed', ...count } : { kind: 'denied', ...count };
      } catch (error) {
        return { kind: 'unavailable', reason: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}
