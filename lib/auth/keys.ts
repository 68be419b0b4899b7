/**
 * The issuer's signing keys. The built-in authorization server's key is configured here (AUTH_SERVER_KEY): its
 * public half is the key set, nothing is fetched. Otherwise the JWKS URL is AUTH_JWKS_URL or the `jwks_uri` of the issuer's metadata
 * (RFC 8414 §3, OpenID Connect Discovery 1.0 §4), whose `issuer` must be the one configured (RFC 8414 §3.3).
 * jose's remote JWKS caches the keys and refetches when a token names an unknown `kid`, at most once per
 * cooldown, so forged kids cannot make us hammer the issuer. jose is imported here, on the first token only.
 * Failures are values; an unreachable issuer is remembered briefly for the same reason.
 */

import type { AuthConfig } from './config.js';

type Jose = typeof import('jose');

/** jose and the issuer's key set, ready for `jwtVerify`. */
export interface IssuerKeys {
  jose: Jose;
  getKey: import('jose').JWTVerifyGetKey;
}

/** Why the keys cannot be had right now (logged, never sent to clients). */
export interface KeysUnavailable {
  unavailable: string;
}

/** Resolves the issuer's keys, or why they are unavailable. */
export type LoadKeys = () => Promise<IssuerKeys | KeysUnavailable>;

const FETCH_TIMEOUT_MS = 5_000;
const RETRY_AFTER_FAILURE_MS = 5_000;
/** jose's cooldown between refetches for unknown kids, and how long keys count as fresh. */
const JWKS_COOLDOWN_MS = 30_000;
const JWKS_MAX_AGE_MS = 10 * 60_000;

/** RFC 8414 §3.1 inserts the well-known segment before an issuer's path; OpenID Discovery appends it. */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  return [...new Set([
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ])];
}

async function discoverJwksUri(issuer: string): Promise<string | KeysUnavailable> {
  const seen: string[] = [];
  for (const candidate of metadataUrls(issuer)) {
    const response = await fetch(candidate, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) })
      .catch(() => undefined);
    if (!response?.ok) continue;
    const metadata = (await response.json().catch(() => ({}))) as { issuer?: unknown; jwks_uri?: unknown };
    if (metadata.issuer !== issuer) {
      seen.push(`${candidate} names issuer ${JSON.stringify(metadata.issuer)}`);
      continue;
    }
    if (typeof metadata.jwks_uri === 'string' && URL.canParse(metadata.jwks_uri)) return metadata.jwks_uri;
    seen.push(`${candidate} has no jwks_uri`);
  }
  const detail = seen.length ? `: ${seen.join('; ')} (AUTH_ISSUER must equal it exactly)` : '';
  return { unavailable: `no authorization server metadata with a jwks_uri for AUTH_ISSUER ${issuer}${detail}` };
}

/** A loader of the issuer's keys, created once per configuration; the first call imports jose. */
export function createKeyLoader(config: AuthConfig): LoadKeys {
  let keys: Promise<IssuerKeys> | undefined;
  let failure: { result: KeysUnavailable; until: number } | undefined;

  const local = config.signingKey?.publicJwk;
  if (local) return () => (keys ??= import('jose').then((jose) => ({ jose, getKey: jose.createLocalJWKSet({ keys: [local] }) })));
  const issuer = config.issuer!;
  return async () => {
    if (keys) return keys;
    if (failure && Date.now() < failure.until) return failure.result;
    const jwksUri = config.jwksUrl ?? (await discoverJwksUri(issuer));
    if (typeof jwksUri !== 'string') {
      failure = { result: jwksUri, until: Date.now() + RETRY_AFTER_FAILURE_MS };
      return jwksUri;
    }
    failure = undefined;
    keys ??= import('jose').then((jose) => ({
      jose,
      getKey: jose.createRemoteJWKSet(new URL(jwksUri), {
        cooldownDuration: JWKS_COOLDOWN_MS,
        cacheMaxAge: JWKS_MAX_AGE_MS,
        timeoutDuration: FETCH_TIMEOUT_MS,
      }),
    }));
    return keys;
  };
}
