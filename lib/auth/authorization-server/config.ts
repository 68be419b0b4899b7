/**
 * The built-in authorization server's settings (docs/oauth.md "The built-in authorization server"), read once and
 * checked at start-up: a misused variable is a TypeError naming it. The server is on when AUTH_SERVER_KEY is set;
 * people then sign in through one upstream provider (GitHub, or any OpenID Connect provider), and only those the
 * allow-list names are let through.
 */

import { readConfig } from '../../config.js';
import { readAuthScopes, readServerScopes, secureUrl } from '../config.js';
import { readSigningKeys, SIGNING_KEY_VARIABLE, type SigningKeys } from '../signing-key.js';
import { readAllowList, type AllowList } from './allow-list.js';
import { ENTERPRISE_VARIABLE, readEnterpriseIdps, type EnterpriseIdp } from './enterprise/config.js';
import { CALLBACK_PATH } from './paths.js';
import { readConsentTtl } from './remembered-consent.js';

type Env = Record<string, string | undefined>;

export type Provider =
  | { kind: 'github'; webUrl: string; apiUrl: string; clientId: string; clientSecret: string }
  | { kind: 'oidc'; issuer: string; clientId: string; clientSecret: string };

export interface AuthServerConfig {
  /** AUTH_SERVER_KEY signs; with a rotation's next and old keys it is published and accepted (signing-key.ts). */
  keys: SigningKeys;
  provider: Provider;
  allow: AllowList;
  /** Scopes this server grants (AUTH_SERVER_SCOPES, default AUTH_SCOPES); published in its metadata. */
  scopes: string[];
  /** Scopes granted when a client asks for none of `scopes` (AUTH_SCOPES). */
  defaultScopes: string[];
  /** The provider's callback when it is fixed (AUTH_SERVER_CALLBACK_URL, for preview deployments); else `<origin>/oauth/callback`. */
  callbackUrl?: string;
  /** How long a person's consent to a client is remembered (AUTH_SERVER_CONSENT_DAYS); 0: the page every time. */
  consentTtlMs: number;
  /** Served locally (no PUBLIC_URL, not on Vercel): client metadata documents may then be on loopback, over http. */
  local: boolean;
  /** The identity providers whose ID-JAGs are redeemed (AUTH_ENTERPRISE_IDPS, enterprise/config.ts); absent: none. */
  enterprise?: EnterpriseIdp[];
}

const GITHUB = 'https://github.com';

function need(env: Env, name: string, why: string): string {
  const value = env[name]?.trim();
  if (!value) throw new TypeError(`${name} must be set when ${why}.`);
  return value;
}

function readProvider(env: Env): Provider {
  const kind = need(env, 'AUTH_SERVER_PROVIDER', `${SIGNING_KEY_VARIABLE} is set (the provider people sign in with: github or oidc)`);
  if (kind !== 'github' && kind !== 'oidc') throw new TypeError(`AUTH_SERVER_PROVIDER must be github or oidc, got "${kind}".`);
  const clientId = need(env, 'AUTH_SERVER_CLIENT_ID', `AUTH_SERVER_PROVIDER is ${kind} (the client id of the app registered with it)`);
  const clientSecret = need(env, 'AUTH_SERVER_CLIENT_SECRET', `AUTH_SERVER_PROVIDER is ${kind} (the client secret of the app registered with it)`);
  if (kind === 'oidc') {
    if (env.AUTH_SERVER_GITHUB_URL) throw new TypeError('AUTH_SERVER_GITHUB_URL is set but AUTH_SERVER_PROVIDER is oidc.');
    need(env, 'AUTH_SERVER_OIDC_ISSUER', 'AUTH_SERVER_PROVIDER is oidc (the provider\'s issuer, e.g. https://accounts.google.com)');
    return { kind, issuer: secureUrl('AUTH_SERVER_OIDC_ISSUER', env.AUTH_SERVER_OIDC_ISSUER!), clientId, clientSecret };
  }
  if (env.AUTH_SERVER_OIDC_ISSUER) throw new TypeError('AUTH_SERVER_OIDC_ISSUER is set but AUTH_SERVER_PROVIDER is github.');
  const webUrl = env.AUTH_SERVER_GITHUB_URL ? secureUrl('AUTH_SERVER_GITHUB_URL', env.AUTH_SERVER_GITHUB_URL).replace(/\/+$/, '') : GITHUB;
  // github.com's API has its own host; GitHub Enterprise Server serves it under /api/v3.
  return { kind, webUrl, apiUrl: webUrl === GITHUB ? 'https://api.github.com' : `${webUrl}/api/v3`, clientId, clientSecret };
}

/** A fixed provider callback is another deployment's /oauth/callback, which hands the sign-in on to this one. */
function readCallbackUrl(env: Env): string {
  const url = secureUrl('AUTH_SERVER_CALLBACK_URL', env.AUTH_SERVER_CALLBACK_URL!);
  if (new URL(url).pathname !== CALLBACK_PATH || new URL(url).search) {
    throw new TypeError(`AUTH_SERVER_CALLBACK_URL must be another deployment's ${CALLBACK_PATH} (https://<production host>${CALLBACK_PATH}), got "${url}".`);
  }
  return url;
}

/** The built-in server's settings, or undefined when AUTH_SERVER_KEY is unset (then no AUTH_SERVER_* may be). */
export function readAuthServerConfig(env: Env): AuthServerConfig | undefined {
  if (!env[SIGNING_KEY_VARIABLE]) {
    const stray = Object.keys(env).find((name) => (name.startsWith('AUTH_SERVER_') || name === ENTERPRISE_VARIABLE) && env[name]);
    if (stray) throw new TypeError(`${stray} is set but ${SIGNING_KEY_VARIABLE} is not; set ${SIGNING_KEY_VARIABLE} to turn the built-in authorization server on.`);
    return undefined;
  }
  const { local } = readConfig(env);
  // Codes and refresh tokens must be redeemable on whichever instance the next request reaches.
  if (env.VERCEL && !(env.UPSTASH_REDIS_REST_URL ?? env.KV_REST_API_URL)) {
    throw new TypeError(`${SIGNING_KEY_VARIABLE} is set on Vercel without a shared store: authorization codes and refresh tokens must reach every instance. `
      + 'Set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (or KV_REST_API_URL and KV_REST_API_TOKEN).');
  }
  const provider = readProvider(env);
  const defaultScopes = readAuthScopes(env);
  const scopes = readServerScopes(env);
  const outside = defaultScopes.filter((scope) => !scopes.includes(scope));
  if (outside.length) throw new TypeError(`AUTH_SERVER_SCOPES must include every scope of AUTH_SCOPES; it lacks ${outside.join(' ')}.`);
  if (scopes.includes('offline_access')) throw new TypeError('AUTH_SERVER_SCOPES lists offline_access, which is not a resource scope: clients ask for it to get a refresh token, and always may.');
  return {
    keys: readSigningKeys(env),
    provider,
    allow: readAllowList(env.AUTH_SERVER_ALLOW, provider.kind),
    scopes,
    defaultScopes,
    callbackUrl: env.AUTH_SERVER_CALLBACK_URL ? readCallbackUrl(env) : undefined,
    consentTtlMs: readConsentTtl(env),
    local,
    enterprise: readEnterpriseIdps(env),
  };
}
