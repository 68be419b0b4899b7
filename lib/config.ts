/**
 * The environment, read and checked once (README "Environment"). Misconfiguration fails at start-up,
 * naming the variable; absent variables mean the embedded defaults.
 */

import { MIN_STATE_SECRET_LENGTH } from './server/request-state.js';

export interface Config {
  /** Canonical public origin (PUBLIC_URL), without a trailing slash. */
  publicUrl?: string;
  /** True on a developer machine: not on Vercel and no PUBLIC_URL; only loopback hosts are served. */
  local: boolean;
  allowedOrigins: string[];
  /** HMAC secret for MRTR requestState (MCP_STATE_SECRET); absent, a random key per process signs. */
  stateSecret?: string;
}

type Env = Record<string, string | undefined>;

function parseOrigin(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${name} must be an absolute http(s) URL, got "${value}".`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`${name} must be an http(s) URL, got "${value}".`);
  }
  return url.origin;
}

export function readConfig(env: Env = process.env): Config {
  const publicUrl = env.PUBLIC_URL ? parseOrigin('PUBLIC_URL', env.PUBLIC_URL) : undefined;
  const allowedOrigins = (env.MCP_ALLOWED_ORIGINS ?? '')
    .split(',').map((o) => o.trim()).filter(Boolean)
    .map((o) => parseOrigin('MCP_ALLOWED_ORIGINS', o));
  const secret = env.MCP_STATE_SECRET;
  if (secret !== undefined && secret.length < MIN_STATE_SECRET_LENGTH) {
    throw new TypeError(`MCP_STATE_SECRET must be at least ${MIN_STATE_SECRET_LENGTH} characters.`);
  }
  // With a shared store there are several instances, and every id the server issues (session, conversation)
  // must verify on all of them: a per-process key would make a conversation unreachable from the next instance.
  const shared = env.UPSTASH_REDIS_REST_URL ?? env.KV_REST_API_URL;
  if (secret === undefined && shared) {
    throw new TypeError(`MCP_STATE_SECRET must be set when the store is shared (${env.UPSTASH_REDIS_REST_URL ? 'UPSTASH_REDIS_REST_URL' : 'KV_REST_API_URL'} is set): ` +
      `session and conversation ids must verify on every instance. Make one with: openssl rand -base64 32`);
  }
  return {
    publicUrl,
    local: !env.VERCEL && publicUrl === undefined,
    allowedOrigins,
    stateSecret: secret,
  };
}

/** The JSON value of an environment variable, or a TypeError naming it (`shape` says what was expected). */
export function parseJsonEnv(name: string, value: string, shape: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new TypeError(`${name} must be ${shape}.`);
  }
}
