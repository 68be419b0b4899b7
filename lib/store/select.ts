/**
 * Which store a deployment uses (docs/deploy.md "Shared state (Upstash / Vercel KV)"): Upstash when its REST
 * endpoint is configured, else this process's memory, and a line for the start-up log saying which.
 */

import { limitHeapGrowth, readHeapGrowth } from './heap.js';
import { classShareOf } from './shares.js';
import { MemoryStore, readMemoryBudget } from './memory.js';
import type { Store } from './types.js';
import { readStoreTimeout, UpstashStore } from './upstash.js';
import type { UpstashConfig } from './upstash-config.js';
import { readWatchInterval } from './watch.js';

export function selectStore(upstash: UpstashConfig | undefined, env: Record<string, string | undefined> = {}): { store: Store; summary: string } {
  const watchMs = readWatchInterval(env);
  const timeoutMs = readStoreTimeout(env);
  if (upstash) {
    return {
      store: new UpstashStore(upstash, { watchMs, timeoutMs }),
      summary: `store: Upstash Redis at ${new URL(upstash.url).host} (from ${upstash.urlVariable}), shared by every instance; `
        + `running calls see a cancellation, answer or turn from another instance within STORE_WATCH_MS=${watchMs} ms `
        + `(one batched read per instance per tick while anything waits); an operation the store has not answered `
        + `within STORE_TIMEOUT_MS=${timeoutMs} ms fails as unavailable`,
    };
  }
  const budget = readMemoryBudget(env);
  const growth = readHeapGrowth(env);
  limitHeapGrowth(growth);
  return {
    store: new MemoryStore(budget, watchMs),
    summary: `store: memory, at most ${budget.maxBytes} bytes and ${budget.maxEntries} entries (MEMORY_STORE_MAX_BYTES, MEMORY_STORE_MAX_ENTRIES), `
      + `at most ${budget.maxBytesPerCaller} per caller (MEMORY_STORE_MAX_BYTES_PER_CALLER) and ${budget.maxBytesSecurity} for security records `
      + `(MEMORY_STORE_MAX_BYTES_SECURITY), shared fairly (docs/security.md): principals, sessions and callers without an identity `
      + `each sure of ${classShareOf(budget).bytes} bytes; the heap grows ${growth ? `at most ${growth}%` : 'as V8 decides'} past what is live `
      + '(MEMORY_STORE_HEAP_GROWTH_PERCENT); this process only: conversations, retried calls, answers to server-to-client requests, '
      + 'cancellations and SSE resumption do not reach other instances (set UPSTASH_REDIS_REST_URL and '
      + 'UPSTASH_REDIS_REST_TOKEN, or KV_REST_API_URL and KV_REST_API_TOKEN, to share them)',
  };
}
