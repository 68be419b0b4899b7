/**
 * Bearer auth settings, read once (docs/oauth.md). OAuth is on when AUTH_ISSUER is set (an external authorization
 * server), or when AUTH_SERVER_KEY is (the built-in one, lib/auth/authorization-server/, whose issuer is the deployment's own public
 * origin); API keys (MCP_API_KEYS) are read in lib/auth/api-keys.ts. Misconfiguration throws at start-up naming the
 * variable.
 */

import { readSigningKeys, SIGNING_ALGORITHM, SIGNING_KEY_VARIABLE, type PublicJwk, type SigningKey } from './signing-key.js';

type Env = Record<string, string | undefined>;

/** Asymmetric JWS algorithms only: a symmetric one would let anyone holding the public key mint tokens. */
export const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** What the auth step checks, from AUTH_*. */
export interface AuthConfig {
  /**
   * The authorization server's issuer identifier, compared exactly with `iss` and its metadata's `issuer`;
   * undefined when the built-in server issues the tokens: its issuer is the request's public origin (issuerFor).
   */
  issuer?: string;
  /** The built-in server's key, which signs its tokens (AUTH_SERVER_KEY). */
  signingKey?: SigningKey;
  /** The public keys that verify the built-in server's tokens: AUTH_SERVER_KEY's, then a rotation's next and old ones. */
  acceptedKeys?: PublicJwk[];
  jwksUrl?: string;
  /** Fixed audience; otherwise the canonical MCP URL of the request's public origin (RFC 8707). */
  audience?: string;
  /** Scopes every tool needs unless it names its own; published in `scopes_supported` and challenges. */
  scopes: string[];
  algorithms: string[];
  clockToleranceSec: number;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** OAuth 2.1 §1.5: authorization server URLs are https; plain http only on loopback, for development. */
export function secureUrl(name: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch { /* reported below */ }
  if (url?.protocol === 'https:' || (url?.protocol === 'http:' && LOOPBACK.has(url.hostname))) return value;
  throw new TypeError(`${name} must be an absolute https URL (http only for localhost), got "${value}".`);
}

/** AUTH_SCOPES: what every entry needs unless it names its own, for OAuth tokens and API keys alike. */
export const readAuthScopes = (env: Env): string[] => (env.AUTH_SCOPES ?? '').split(/[\s,]+/).filter(Boolean);

/** AUTH_SERVER_SCOPES: the scopes the built-in authorization server grants (AUTH_SCOPES when unset). */
export const readServerScopes = (env: Env): string[] =>
  (env.AUTH_SERVER_SCOPES ? env.AUTH_SERVER_SCOPES.split(/[\s,]+/).filter(Boolean) : readAuthScopes(env));

/** The issuer of the tokens a request to `origin` carries: AUTH_ISSUER, or the built-in server at that origin. */
export const issuerFor = (config: AuthConfig, origin: string): string => config.issuer ?? origin;

/** The OAuth settings, or undefined when neither AUTH_ISSUER nor AUTH_SERVER_KEY is set; throws a TypeError naming a misused variable. */
export const readAuthConfig = (env: Env): AuthConfig | undefined => readBuiltInConfig(env) ?? readIssuerConfig(env);

/**
 * The external issuer's settings (AUTH_ISSUER), or undefined when it is off; with AUTH_SERVER_KEY set the built-in
 * server's settings own AUTH_AUDIENCE and AUTH_SCOPES, and readBuiltInConfig refuses AUTH_ISSUER beside it.
 */
export function readIssuerConfig(env: Env): AuthConfig | undefined {
  if (env[SIGNING_KEY_VARIABLE]) return undefined;
  if (!env.AUTH_ISSUER) {
    for (const name of ['AUTH_JWKS_URL', 'AUTH_AUDIENCE', 'AUTH_ALGORITHMS']) {
      if (env[name]) throw new TypeError(`${name} is set but AUTH_ISSUER is not; set AUTH_ISSUER to turn auth on.`);
    }
    // API keys carry scopes too, so the default an entry needs applies to them (docs/api-keys.md).
    if (env.AUTH_SCOPES && !env.MCP_API_KEYS?.trim()) {
      throw new TypeError('AUTH_SCOPES is set but neither AUTH_ISSUER nor MCP_API_KEYS is; set one of them to turn auth on.');
    }
    return undefined;
  }
  const algorithms = env.AUTH_ALGORITHMS ? env.AUTH_ALGORITHMS.split(/[\s,]+/).filter(Boolean) : ASYMMETRIC;
  const symmetric = algorithms.filter((a) => !ASYMMETRIC.includes(a));
  if (symmetric.length) throw new TypeError(`AUTH_ALGORITHMS may list only asymmetric algorithms; not ${symmetric.join(', ')}.`);
  return {
    issuer: secureUrl('AUTH_ISSUER', env.AUTH_ISSUER),
    jwksUrl: env.AUTH_JWKS_URL ? secureUrl('AUTH_JWKS_URL', env.AUTH_JWKS_URL) : undefined,
    audience: env.AUTH_AUDIENCE || undefined,
    scopes: readAuthScopes(env),
    algorithms,
    clockToleranceSec: 30,
  };
}

/** Auth by the built-in authorization server (AUTH_SERVER_KEY): its own ES256 keys, its issuer the deployment's origin. */
export function readBuiltInConfig(env: Env): AuthConfig | undefined {
  if (!env[SIGNING_KEY_VARIABLE]) return undefined;
  for (const name of ['AUTH_ISSUER', 'AUTH_JWKS_URL', 'AUTH_ALGORITHMS']) {
    if (env[name]) throw new TypeError(`${name} is set but so is ${SIGNING_KEY_VARIABLE}: the built-in authorization server issues the tokens then; unset one of them.`);
  }
  const keys = readSigningKeys(env);
  return {
    signingKey: keys.signing,
    acceptedKeys: keys.accepted.map((key) => key.publicJwk),
    audience: env.AUTH_AUDIENCE || undefined,
    scopes: readAuthScopes(env),
    algorithms: [SIGNING_ALGORITHM],
    clockToleranceSec: 30,
  };
}

/**
 * Refuses bearer auth whose audience would follow the client's Host (RFC 8707: a token for another resource must
 * not be accepted here): served off Vercel without PUBLIC_URL or AUTH_AUDIENCE, only a server that knows the port
 * it listens on (PORT, set by npm start) can pin it (lib/http/public-url.ts).
 */
export function requireAudienceSource(config: AuthConfig, served: { local: boolean }, env: Env): void {
  if (config.audience !== undefined || !served.local || env.PORT?.trim()) return;
  const which = config.issuer === undefined ? SIGNING_KEY_VARIABLE : 'AUTH_ISSUER';
  throw new TypeError(`${which} is set but this server has no canonical URL for the token audience: set PUBLIC_URL `
    + '(or AUTH_AUDIENCE), or serve it with npm start, which pins the audience to the port it listens on (PORT). Off Vercel, '
    + 'the audience would otherwise follow the Host header a client sends.');
}
