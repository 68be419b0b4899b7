/**
 * The environment, read and checked once (README "Environment"). Misconfiguration fails at start-up,
 * naming the variable; absent variables mean the embedded defaults.
 */

export interface Config {
  /** Canonical public origin (PUBLIC_URL), without a trailing slash. */
  publicUrl?: string;
  /** True on a developer machine: not on Vercel and no PUBLIC_URL; only loopback hosts are served. */
  local: boolean;
  allowedOrigins: string[];
  /** HMAC secret for MRTR requestState (MCP_STATE_SECRET); random per process when unset. */
  stateSecret: string;
  stateSecretIsEphemeral: boolean;
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

function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function readConfig(env: Env = process.env): Config {
  const publicUrl = env.PUBLIC_URL ? parseOrigin('PUBLIC_URL', env.PUBLIC_URL) : undefined;
  const allowedOrigins = (env.MCP_ALLOWED_ORIGINS ?? '')
    .split(',').map((o) => o.trim()).filter(Boolean)
    .map((o) => parseOrigin('MCP_ALLOWED_ORIGINS', o));
  const secret = env.MCP_STATE_SECRET;
  if (secret !== undefined && secret.length < 32) {
    throw new TypeError('MCP_STATE_SECRET must be at least 32 characters.');
  }
  return {
    publicUrl,
    local: !env.VERCEL && publicUrl === undefined,
    allowedOrigins,
    stateSecret: secret ?? randomSecret(),
    stateSecretIsEphemeral: secret === undefined,
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
