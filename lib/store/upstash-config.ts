/**
 * Where the shared Redis is: `UPSTASH_REDIS_REST_URL`/`_TOKEN`, or the `KV_REST_API_URL`/`_TOKEN` pair a
 * Vercel Marketplace (formerly Vercel KV) database sets; the same precedence as `Redis.fromEnv()` of
 * `@upstash/redis`. Read once at start-up; a half-set pair or a bad URL throws naming the variable.
 */

type Env = Record<string, string | undefined>;

/** The namespace of every key agent-mcp writes (store entries, and `rl:` for rate limits). */
export const DEFAULT_PREFIX = 'agent-mcp:';

export interface UpstashConfig {
  url: string;
  token: string;
  /** The variable the URL came from, for start-up logs. */
  urlVariable: 'UPSTASH_REDIS_REST_URL' | 'KV_REST_API_URL';
}

const PAIRS = [
  ['UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN'],
  ['KV_REST_API_URL', 'KV_REST_API_TOKEN'],
] as const;

/** The Upstash REST endpoint from the environment; undefined when neither pair is set. */
export function readUpstashConfig(env: Env): UpstashConfig | undefined {
  for (const [urlName, tokenName] of PAIRS) {
    const url = env[urlName]?.trim();
    const token = env[tokenName]?.trim();
    if (!url && !token) continue;
    if (!url) throw new TypeError(`${urlName} must be set when ${tokenName} is.`);
    if (!token) throw new TypeError(`${tokenName} must be set when ${urlName} is.`);
    // @upstash/redis accepts only ^https?:// base URLs (pkg/http.ts); say so before the first request fails.
    if (!/^https?:\/\/[^\s/?#]+/.test(url)) throw new TypeError(`${urlName} must be an http(s) URL, got "${url}".`);
    return { url: url.replace(/\/+$/, ''), token, urlVariable: urlName };
  }
  return undefined;
}
