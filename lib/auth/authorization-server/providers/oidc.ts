/**
 * Sign-in with an OpenID Connect provider (Google, Microsoft Entra, Okta, Auth0, Keycloak…): its metadata from
 * `<issuer>/.well-known/openid-configuration` (whose `issuer` must be the one configured, exactly), the code
 * exchanged with the server's PKCE verifier and its client secret, the ID token verified by jose (loaded here, on
 * the first sign-in) against the provider's keys, issuer, our client id as audience, and the nonce of this sign-in.
 * An email counts only with `email_verified: true`, from the ID token or else the userinfo endpoint (for the same
 * `sub`). The principal is `oidc:<sub>`.
 */

import { isRecord } from '../../../checks.js';
import { ASYMMETRIC } from '../../config.js';
import type { UpstreamIdentity } from '../allow-list.js';
import type { Provider } from '../config.js';
import type { SignIn } from './types.js';
import { isFailure, providerJson, type ProviderFailure } from './http.js';

type Oidc = Extract<Provider, { kind: 'oidc' }>;

interface Discovered {
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint?: string;
  token_endpoint_auth_methods_supported?: string[];
}

/** The provider's metadata is kept an hour; a failure is retried after 5 s, not on every sign-in. */
const METADATA_TTL_MS = 60 * 60_000;
const RETRY_AFTER_FAILURE_MS = 5_000;

const isUrl = (value: unknown): value is string => typeof value === 'string' && URL.canParse(value);

export function createOidcSignIn(oidc: Oidc): SignIn {
  let metadata: { value: Promise<Discovered | ProviderFailure>; until: number } | undefined;
  let keys: ReturnType<typeof import('jose').createRemoteJWKSet> | undefined;

  async function discover(): Promise<Discovered | ProviderFailure> {
    const reply = await providerJson(`${oidc.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, { headers: { accept: 'application/json' } });
    if (isFailure(reply)) return reply;
    const doc = isRecord(reply.body) ? reply.body : {};
    if (doc.issuer !== oidc.issuer) return { failure: `the provider's metadata names issuer ${JSON.stringify(doc.issuer)}, not AUTH_SERVER_OIDC_ISSUER ${oidc.issuer}` };
    if (!isUrl(doc.authorization_endpoint) || !isUrl(doc.token_endpoint) || !isUrl(doc.jwks_uri)) return { failure: 'the provider\'s metadata lacks an authorization, token or JWKS endpoint' };
    return doc as unknown as Discovered;
  }

  function provider(): Promise<Discovered | ProviderFailure> {
    if (!metadata || Date.now() > metadata.until) {
      const value = discover();
      metadata = { value, until: Date.now() + METADATA_TTL_MS };
      void value.then((result) => { if (isFailure(result) && metadata?.value === value) metadata.until = Date.now() + RETRY_AFTER_FAILURE_MS; });
    }
    return metadata.value;
  }

  /** RFC 6749 §2.3.1: client_secret_basic unless the provider takes client_secret_post only. */
  function clientAuthentication(doc: Discovered, body: URLSearchParams): Record<string, string> {
    const methods = doc.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    if (!methods.includes('client_secret_basic') && methods.includes('client_secret_post')) {
      body.set('client_id', oidc.clientId);
      body.set('client_secret', oidc.clientSecret);
      return {};
    }
    const basic = Buffer.from(`${encodeURIComponent(oidc.clientId)}:${encodeURIComponent(oidc.clientSecret)}`).toString('base64');
    return { authorization: `Basic ${basic}` };
  }

  async function claimsOf(doc: Discovered, idToken: string, nonce: string): Promise<Record<string, unknown> | ProviderFailure> {
    const jose = await import('jose');
    keys ??= jose.createRemoteJWKSet(new URL(doc.jwks_uri), { timeoutDuration: 5_000 });
    try {
      const { payload } = await jose.jwtVerify(idToken, keys, { issuer: oidc.issuer, audience: oidc.clientId, algorithms: ASYMMETRIC, clockTolerance: 30, requiredClaims: ['sub'] });
      return payload.nonce === nonce ? payload : { failure: 'the ID token\'s nonce is not this sign-in\'s' };
    } catch (error) {
      return { failure: `the ID token does not verify: ${String(error)}` };
    }
  }

  return {
    name: new URL(oidc.issuer).host,
    async authorizationUrl({ callbackUrl, state, codeChallenge, nonce }) {
      const doc = await provider();
      if (isFailure(doc)) return doc;
      const url = new URL(doc.authorization_endpoint);
      for (const [name, value] of Object.entries({
        response_type: 'code', client_id: oidc.clientId, redirect_uri: callbackUrl, scope: 'openid email', state, nonce,
        code_challenge: codeChallenge, code_challenge_method: 'S256',
      })) url.searchParams.set(name, value);
      return url.href;
    },
    async identify({ code, callbackUrl, codeVerifier, nonce }): Promise<UpstreamIdentity | ProviderFailure> {
      const doc = await provider();
      if (isFailure(doc)) return doc;
      const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: callbackUrl, code_verifier: codeVerifier });
      const headers = { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', ...clientAuthentication(doc, body) };
      const reply = await providerJson(doc.token_endpoint, { method: 'POST', headers, body });
      if (isFailure(reply)) return reply;
      const tokens = isRecord(reply.body) ? reply.body : {};
      if (typeof tokens.id_token !== 'string') return { failure: 'the provider\'s token reply has no id_token (is the openid scope allowed?)' };
      const claims = await claimsOf(doc, tokens.id_token, nonce);
      if (isFailure(claims)) return claims;
      let { email, email_verified: verified } = claims;
      if (email === undefined && doc.userinfo_endpoint && typeof tokens.access_token === 'string') {
        const info = await providerJson(doc.userinfo_endpoint, { headers: { accept: 'application/json', authorization: `Bearer ${tokens.access_token}` } });
        if (!isFailure(info) && isRecord(info.body) && info.body.sub === claims.sub) ({ email, email_verified: verified } = info.body);
      }
      const emails = typeof email === 'string' && verified === true ? [email.toLowerCase()] : [];
      return { subject: `oidc:${String(claims.sub)}`, emails };
    },
  };
}
