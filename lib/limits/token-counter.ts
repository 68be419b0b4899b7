/**
 * The store side of token budgets (tokens.ts): per budget key, the tokens spent in the current window and in the one
 * before it, the counts @upstash/ratelimit's sliding window keeps for requests. Unlike a request limit a charge is
 * never refused: the tokens are already spent when the upstream reports them, so they always count, and the budget
 * refuses the next call instead. A read and a charge of every budget of a call are one command together: one Lua
 * script (EVALSHA) on Upstash, one step in memory. Like a limiter, a counter never throws: a store fault is an
 * answer the caller applies RATE_LIMIT_ON_ERROR to.
 */

import type { Redis } from '@upstash/redis';
import { loadUpstashClient } from '../store/upstash-client.js';
import type { UpstashConfig } from '../store/upstash-config.js';

/** One budget's counter: its key (who spends, under which setting) and its window. */
export interface TokenKey {
  key: string;
  windowMs: number;
}

/** Tokens one key spent in the current window and the one before, as of `now`. */
export interface Spent {
  current: number;
  previous: number;
}

export type CountOutcome = { kind: 'counted'; spent: Spent[] } | { kind: 'unavailable'; reason: string };

export interface TokenCounter {
  /** Adds `cost` tokens (0: only reads) to each key's current window; what each has spent, in the order given. */
  spend(keys: readonly TokenKey[], cost: number, now: number): Promise<CountOutcome>;
}

/** The key of `key`'s window at `now`, its index, and the one before. */
function windowsOf({ key, windowMs }: TokenKey, now: number): [string, string] {
  const window = Math.floor(now / windowMs);
  return [`${key}:${window}`, `${key}:${window - 1}`];
}

/** A window's count lives two windows and a second: while it can still be the previous window of a check. */
const ttlOf = (windowMs: number) => 2 * windowMs + 1_000;

/**
 * KEYS: the current and the previous window of each budget. ARGV: the cost, then each budget's ttl. Returns the
 * current and previous counts of each budget, after the cost is added.
 */
export const SPEND = `#!lua flags=allow-key-locking
local cost = tonumber(ARGV[1])
local out = {}
for i = 1, #KEYS, 2 do
  local current
  if cost > 0 then
    current = redis.call('INCRBY', KEYS[i], cost)
    redis.call('PEXPIRE', KEYS[i], ARGV[(i + 1) / 2 + 1])
  else
    current = tonumber(redis.call('GET', KEYS[i])) or 0
  end
  out[#out + 1] = current
  out[#out + 1] = tonumber(redis.call('GET', KEYS[i + 1])) or 0
end
return out
`;

/** Counters past this many keys are swept of expired ones. */
const SWEEP_AT = 10_000;

/** This instance's memory: each instance counts on its own (start-up says so), with the same arithmetic. */
export function createMemoryTokenCounter(): TokenCounter {
  const counts = new Map<string, { value: number; expires: number }>();
  const read = (key: string, now: number) => {
    const entry = counts.get(key);
    return entry && entry.expires > now ? entry.value : 0;
  };
  return {
    async spend(keys, cost, now) {
      if (counts.size > SWEEP_AT) for (const [key, entry] of counts) if (entry.expires <= now) counts.delete(key);
      const spent = keys.map((budget) => {
        const [current, previous] = windowsOf(budget, now);
        const value = read(current, now) + cost;
        if (cost > 0) counts.set(current, { value, expires: now + ttlOf(budget.windowMs) });
        return { current: value, previous: read(previous, now) };
      });
      return { kind: 'counted', spent };
    },
  };
}

export interface UpstashTokenCounterOptions {
  /** Key namespace, e.g. `agent-mcp:tb:`. */
  prefix: string;
  /** How long a count waits for Redis (RATE_LIMIT_TIMEOUT_MS). */
  timeoutMs: number;
  /** A ready client (tests wrap the real one to count round trips); built from `config` otherwise. */
  client?: Pick<Redis, 'createScript'>;
}

/** The shared counter: every instance counts against one total per budget, one EVALSHA per count. */
export function createUpstashTokenCounter(config: UpstashConfig, options: UpstashTokenCounterOptions): TokenCounter {
  let script: ReturnType<Redis['createScript']> | undefined;
  let loading: Promise<ReturnType<Redis['createScript']>> | undefined;
  const load = async () => {
    const redis = options.client ?? (await loadUpstashClient(config, { retries: 0, requestTimeoutMs: options.timeoutMs }));
    // `exec` sends EVALSHA and, when Redis does not have the script yet, EVAL once.
    return (script = redis.createScript(SPEND));
  };
  return {
    async spend(keys, cost, now) {
      try {
        const run = script ?? (await (loading ??= load().finally(() => (loading = undefined))));
        const names = keys.flatMap((budget) => windowsOf(budget, now).map((name) => options.prefix + name));
        const ttls = keys.map((budget) => String(ttlOf(budget.windowMs)));
        const answer = await withTimeout(run.exec(names, [String(cost), ...ttls]) as Promise<unknown>, options.timeoutMs);
        if (!Array.isArray(answer) || answer.length !== 2 * keys.length) return { kind: 'unavailable', reason: 'Redis gave an unexpected answer' };
        const spent = keys.map((_, i) => ({ current: Number(answer[2 * i]) || 0, previous: Number(answer[2 * i + 1]) || 0 }));
        return { kind: 'counted', spent };
      } catch (error) {
        return { kind: 'unavailable', reason: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}

/** The client's own deadline covers each request; this one covers the whole count (EVALSHA, then EVAL). */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
