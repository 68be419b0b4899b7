/**
 * The issuer's signing keys. The built-in authorization server's keys are configured here (AUTH_SERVER_KEY, and a
 * rotation's AUTH_SERVER_NEXT_KEY and AUTH_SERVER_OLD_KEY): their public halves are the key set, nothing is fetched. Otherwise the JWKS URL is AUTH_JWKS_URL or the `jwks_uri` of the issuer's metadata
 * (RFC 8414 §3, OpenID Connect Discovery 1.0 §4), whose `issuer` must be the one configured (RFC 8414 §3.3).
 * jose's remote JWKS caches the keys and refetches when a token names an unknown `kid`, at most once per
 * cooldown, so forged kids cannot make us hammer the issuer. The key set and the metadata are read within
 * MAX_KEY_DOCUMENT_BYTES, counted as they arrive, and neither fetch follows a redirect (docs/architecture.md rule 16): a
 * metadata document that redirects is a misconfiguration naming the variable to set. jose is imported here, on the
 * first token only.
 * Failures are values; an unreachable issuer is remembered briefly for the same reason.
 */

import { readCappedText } from '../http/body.js';
import { isFailure, providerJson, REDIRECTED } from './authorization-server/providers/http.js';
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
  /** What the last try met, for the health probe: `HTTP <status>`, `timeout` or `unavailable`. */
  error?: string;
}

/**
 * Why the keys will not be had until the configuration changes: the issuer's metadata answers, but names another
 * issuer (a trailing slash is enough) or no key set. Logged for the operator; callers are told the server is
 * misconfigured, never to try again.
 */
export interface IssuerMisconfigured {
  misconfigured: string;
  /** For the health probe: `issuer mismatch` or `no jwks_uri`. */
  error: string;
}

/** Resolves the issuer's keys, or why they cannot be had. */
export type LoadKeys = () => Promise<IssuerKeys | KeysUnavailable | IssuerMisconfigured>;

const FETCH_TIMEOUT_MS = 5_000;
const RETRY_AFTER_FAILURE_MS = 5_000;
/** jose's cooldown between refetches for unknown kids, and how long keys count as fresh. */
const JWKS_COOLDOWN_MS = 30_000;
const JWKS_MAX_AGE_MS = 10 * 60_000;
/** A key set or a metadata document is a few KiB (a certificate chain per key at most); more is refused, not read. */
export const MAX_KEY_DOCUMENT_BYTES = 256 * 1024;

/** jose's key-set request (same method, headers, no redirects, its timeout's signal), the reply read within MAX_KEY_DOCUMENT_BYTES. */
async function boundedFetch(url: string, init: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    return new Response(null, { status: response.status });
  }
  const text = await readCappedText(response, MAX_KEY_DOCUMENT_BYTES);
  if (text === undefined) throw new Error(`the key set at ${url} is larger than ${MAX_KEY_DOCUMENT_BYTES} bytes`);
  return new Response(text, { status: 200, headers: response.headers });
}

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

/** Where the operator names an issuer and its key set, for the messages that tell them what to change. */
export interface KeySettings {
  issuer: string;
  jwks: string;
}
const ISSUER_SETTINGS: KeySettings = { issuer: 'AUTH_ISSUER', jwks: 'AUTH_JWKS_URL' };

/**
 * The issuer's `jwks_uri`, from the first metadata document that answers for exactly `issuer`. A document that
 * answers for another issuer, or without a key set, makes it a misconfiguration; none answering, unavailable.
 * `signal` bounds the whole search (the health probe's timeout); without one, each fetch gets FETCH_TIMEOUT_MS.
 */
export async function discoverJwksUri(issuer: string, signal?: AbortSignal, settings: KeySettings = ISSUER_SETTINGS): Promise<string | KeysUnavailable | IssuerMisconfigured> {
  let misconfigured: IssuerMisconfigured | undefined;
  let error = 'unavailable';
  for (const candidate of metadataUrls(issuer)) {
    // Redirects are not followed (providerJson): the keys come from where the issuer was configured, or nowhere.
    const reply = await providerJson(candidate, { headers: { accept: 'application/json' }, signal: signal ?? AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (isFailure(reply) && reply.error === REDIRECTED) {
      misconfigured ??= {
        misconfigured: `the authorization server's metadata at ${candidate} answers with a redirect, which agent-mcp does not follow for keys; `
          + `set ${settings.issuer} to the issuer whose metadata is served at its own address, or ${settings.jwks} to its key set.`,
        error: REDIRECTED,
      };
      continue;
    }
    if (isFailure(reply) && reply.error !== 'not JSON') {
      error = reply.error ?? 'unavailable';
      continue;
    }
    // A document that is not JSON names no issuer: the mismatch below says so.
    const metadata: { issuer?: unknown; jwks_uri?: unknown } = !isFailure(reply) && typeof reply.body === 'object' && reply.body !== null ? reply.body : {};
    if (metadata.issuer !== issuer) {
      misconfigured ??= {
        misconfigured: `${settings.issuer} is "${issuer}", but the authorization server's metadata at ${candidate} names its issuer `
          + `${JSON.stringify(metadata.issuer)}; set ${settings.issuer} to exactly that (the token's iss must match it too).`,
        error: 'issuer mismatch',
      };
      continue;
    }
    if (typeof metadata.jwks_uri === 'string' && URL.canParse(metadata.jwks_uri)) return metadata.jwks_uri;
    misconfigured ??= { misconfigured: `the authorization server's metadata at ${candidate} has no jwks_uri; set ${settings.jwks} to its key set.`, error: 'no jwks_uri' };
  }
  return misconfigured ?? { unavailable: `no authorization server metadata answers for ${settings.issuer} ${issuer} (${error})`, error };
}

/** A loader of the issuer's keys, created once per configuration; the first call imports jose. */
export function createKeyLoader(config: AuthConfig, settings?: KeySettings): LoadKeys {
  let keys: Promise<IssuerKeys> | undefined;
  let failure: { result: KeysUnavailable | IssuerMisconfigured; until: number } | undefined;

  const local = config.acceptedKeys;
  // jose picks the key by the token's `kid` (a rotation lists several).
  if (local) return () => (keys ??= import('jose').then((jose) => ({ jose, getKey: jose.createLocalJWKSet({ keys: local }) })));
  const issuer = config.issuer!;
  return async () => {
    if (keys) return keys;
    if (failure && Date.now() < failure.until) return failure.result;
    const jwksUri = config.jwksUrl ?? (await discoverJwksUri(issuer, undefined, settings));
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
        [jose.customFetch]: boundedFetch,
      }),
    }));
    return keys;
  };
}
