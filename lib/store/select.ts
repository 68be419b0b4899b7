/**
 * Which store a deployment uses (README "Shared state (Upstash / Vercel KV)"): Upstash when its REST
 * endpoint is configured, else this process's memory, and a line for the start-up log saying which.
 */

import { MemoryStore } from './memory.js';
import type { Store } from './types.js';
import { UpstashStore } from './upstash.js';
import type { UpstashConfig } from './upstash-config.js';

export function selectStore(upstash: UpstashConfig | undefined): { store: Store; summary: string } {
  if (upstash) {
    return {
      store: new UpstashStore(upstash),
      summary: `store: Upstash Redis at ${new URL(upstash.url).host} (from ${upstash.urlVariable}), shared by every instance`,
    };
  }
  return {
    store: new MemoryStore(),
    summary: 'store: memory, this process only: conversations, retried calls, answers to server-to-client requests, '
      + 'cancellations and SSE resumption do not reach other instances (set UPSTASH_REDIS_REST_URL and '
      + 'UPSTASH_REDIS_REST_TOKEN, or KV_REST_API_URL and KV_REST_API_TOKEN, to share them)',
  };
}
