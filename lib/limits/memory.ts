/**
 * The limiter without Redis: the same sliding window as `@upstash/ratelimit` (the previous window's count,
 * weighted by how much of it still overlaps, plus the current window's), in this process's memory. Each
 * serverless instance therefore counts on its own; start-up says so.
 */

import type { Rate } from './rate.js';
import type { Limiter, LimitOutcome } from './types.js';

interface Counter {
  window: number;
  current: number;
  previous: number;
}

/** Stale counters are swept when the map grows past this. */
const SWEEP_AT = 10_000;

export function createMemoryLimiter(rate: Rate, now: () => number = Date.now): Limiter {
  const counters = new Map<string, Counter>();

  function counterFor(identifier: string, window: number): Counter {
    const counter = counters.get(identifier);
    if (counter?.window === window) return counter;
    const fresh = { window, current: 0, previous: counter?.window === window - 1 ? counter.current : 0 };
    if (!counter && counters.size >= SWEEP_AT) sweep(window);
    counters.set(identifier, fresh);
    return fresh;
  }

  function sweep(window: number): void {
    for (const [identifier, counter] of counters) if (counter.window < window - 1) counters.delete(identifier);
  }

  return {
    async limit(identifier, cost = 1): Promise<LimitOutcome> {
      const at = now();
      const window = Math.floor(at / rate.windowMs);
      const counter = counterFor(identifier, window);
      const overlap = 1 - (at % rate.windowMs) / rate.windowMs;
      const used = Math.floor(counter.previous * overlap) + counter.current;
      const reset = (window + 1) * rate.windowMs;
      if (used + cost > rate.limit) return { kind: 'denied', limit: rate.limit, remaining: 0, reset };
      counter.current += cost;
      return { kind: 'allowed', limit: rate.limit, remaining: rate.limit - used - cost, reset };
    },
  };
}
