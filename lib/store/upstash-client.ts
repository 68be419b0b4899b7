/**
 * Loads `@upstash/redis` on first use only, so deployments without Upstash never import it (cold start).
 * Values are serialised by the store itself (`automaticDeserialization: false`): the client's own JSON
 * guessing would turn a stored string "42" into a number.
 */

import type { Redis } from '@upstash/redis';
import type { UpstashConfig } from './upstash-config.js';

export interface UpstashClientOptions {
  /** Network retries per command (the client's default is 5, ≈4.3 s against a refused port; reference §B2). */
  retries: number;
  /** Aborts each HTTP request after this long, so a hanging Redis does not pile up open requests. */
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
    // A function is called per request (pkg/http.ts), giving each request its own deadline.
    ...(requestTimeoutMs ? { signal: () => AbortSignal.timeout(requestTimeoutMs) } : {}),
  });
}
