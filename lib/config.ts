/**
 * The environment, read and checked once (docs/configuration.md "Configuration"). Misconfiguration fails at start-up,
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

/**
 * An integer environment variable of at least `min`: absent or blank means `fallback`; anything else that is not
 * such an integer is a TypeError naming the variable (`shape` says what was expected).
 */
export function integerEnv(env: Env, name: string, fallback: number, min = 1, shape = 'a positive integer'): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) throw new TypeError(`${name} must be ${shape}, got "${raw}".`);
  return value;
}

/** The JSON value of an environment variable, or a TypeError naming it, saying where the JSON breaks. */
export function parseJsonEnv(name: string, value: string, shape: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    const at = jsonBreak(value);
    const near = value.slice(Math.max(0, at - 20), at + 20).replace(/\s+/g, ' ');
    const where = at >= value.length ? 'the JSON ends too early' : `the JSON breaks at position ${at} (${lineAndColumn(value, at)})`;
    throw new TypeError(`${name} must be ${shape}: ${where}, near \`${near}\`.`);
  }
}

/**
 * Where `text` stops being valid JSON: the length of its longest prefix that JSON could still continue. V8's
 * message names the position for some errors only ("Unexpected token 'x', ... is not valid JSON" does not),
 * so it is found by bisection; a prefix is viable when it parses or fails only for running out of input.
 */
function jsonBreak(text: string): number {
  const viable = (length: number) => {
    try {
      JSON.parse(text.slice(0, length));
      return true;
    } catch (error) {
      const message = (error as Error).message;
      return /end of JSON input/.test(message) || new RegExp(`at position ${length}\\b`).test(message);
    }
  };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (viable(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}

function lineAndColumn(text: string, at: number): string {
  const lines = text.slice(0, at).split('\n');
  return `line ${lines.length}, column ${lines.at(-1)!.length + 1}`;
}
