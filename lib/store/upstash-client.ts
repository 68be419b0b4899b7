/**
 * Loads `@upstash/redis` on first use only, so deployments without Upstash never import it (cold start).
 * Values are serialised by the store itself (`automaticDeserialization: false`): the client's own JSON
 * guessing would turn a stored string "42" into a number.
 */

import type { Redis } from '@upstash/redis';
import type { UpstashConfig } from './upstash-config.js';

export interface UpstashClientOptions {
  /** Network retries per command (the client's default is 5, ≈4.3 s against a refused port, as measured; docs/rate-limits.md). */
  retries: number;
  /**
   * Ends each command after this long, its retries included (the client takes one signal per command, before its
   * retries; after the deadline the next try fails at once, so a command ends within this plus one retry pause):
   * a hanging Redis neither holds a call nor piles up open requests.
   */
  requestTimeoutMs?: number;
}

/** A Redis REST client for `config`; the package is imported on the first call. */
export async function loadUpstashClient(config: UpstashConfig, { retries, requestTimeoutMs }: UpstashClientOptions): Promise<Redis> {
  const { Redis } = await import('@upstash/redis');
  return new Redis({
    url: config.url,
    token: config.token,
    automaticDeserialization: false,
    enableTelemetry: false,
    retry: retries === 0 ? false : { retries, backoff: (attempt) => Math.exp(attempt) * 50 },
    // A function is called once per command (pkg/http.ts `request`), giving each its own deadline.
    ...(requestTimeoutMs ? { signal: () => AbortSignal.timeout(requestTimeoutMs) } : {}),
  });
}
