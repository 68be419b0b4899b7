/**
 * Test support: the enterprise identity provider's half of Enterprise-Managed Authorization, on the test OpenID
 * provider (oauth-server.ts, oidc-provider): RFC 8693 token exchange at its token endpoint, trading an ID token it
 * issued to the authenticated client (oidc-provider authenticates the client first) for an ID-JAG
 * (draft-ietf-oauth-identity-assertion-authz-grant §4.3): `typ` oauth-id-jag+jwt, signed with the provider's own key
 * (published at its JWKS), `iss` its issuer, `sub` the ID token's, `aud` the requested audience, `resource`, `scope`
 * and the client's id at the resource's authorization server (the mapping an IdP administrator configures).
 * `sign` mints an ID-JAG with any claims, for tests of what the resource's server must refuse.
 */

import { randomUUID } from 'node:crypto';
import * as jose from 'jose';
import type Provider from 'oidc-provider';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const ID_JAG_LIFETIME_SEC = 300;

export interface IdJagPolicy {
  /** The client's id at the resource's authorization server, by its client id here (default: the same id). */
  clientIds?: Record<string, string>;
}

/** Mints an ID-JAG: the usual claims, overridden (undefined removes one) by `claims`; `header` likewise. */
export type SignIdJag = (claims: Record<string, unknown>, header?: Record<string, unknown>) => Promise<string>;

export function idJagSigner(issuer: string, key: jose.CryptoKey, kid: string, alg: string): SignIdJag {
  return async (claims, header = {}) => {
    const now = Math.floor(Date.now() / 1000);
    const all = Object.fromEntries(Object.entries({ iss: issuer, jti: randomUUID(), iat: now, exp: now + ID_JAG_LIFETIME_SEC, ...claims }).filter(([, v]) => v !== undefined));
    const protectedHeader = Object.fromEntries(Object.entries({ alg, kid, typ: 'oauth-id-jag+jwt', ...header }).filter(([, v]) => v !== undefined));
    return new jose.SignJWT(all).setProtectedHeader(protectedHeader as jose.JWTHeaderParameters).sign(key);
  };
}

type Ctx = {
  oidc: { params: Record<string, string | undefined>; client: { clientId: string } };
  body?: unknown;
  status?: number;
};

/** Registers the token exchange for ID-JAGs at `provider`, whose ID tokens verify with `publicKey`. */
export function registerIdJagExchange(provider: Provider, issuer: string, publicKey: jose.CryptoKey, sign: SignIdJag, policy: IdJagPolicy): void {
  const refuse = (ctx: Ctx, description: string) => {
    ctx.status = 400;
    ctx.body = { error: 'invalid_request', error_description: description };
  };
  provider.registerGrantType(TOKEN_EXCHANGE_GRANT, async (ctx: Ctx) => {
    const { params, client } = ctx.oidc;
    if (params.requested_token_type !== ID_JAG_TOKEN_TYPE || params.subject_token_type !== ID_TOKEN_TYPE) return refuse(ctx, 'only ID tokens for ID-JAGs');
    if (!params.audience) return refuse(ctx, 'audience is required');
    let sub: string;
    try {
      // §4.3.3: the subject token is an ID token this provider issued to the client that authenticated.
      const { payload } = await jose.jwtVerify(params.subject_token ?? '', publicKey, { issuer, audience: client.clientId });
      sub = payload.sub!;
    } catch {
      ctx.status = 400;
      ctx.body = { error: 'invalid_grant', error_description: 'the subject token is not an ID token of this client' };
      return;
    }
    const assertion = await sign({
      sub,
      aud: params.audience,
      client_id: policy.clientIds?.[client.clientId] ?? client.clientId,
      ...(params.resource ? { resource: params.resource } : {}),
      ...(params.scope ? { scope: params.scope } : {}),
    });
    ctx.body = { issued_token_type: ID_JAG_TOKEN_TYPE, access_token: assertion, token_type: 'N_A', expires_in: ID_JAG_LIFETIME_SEC, ...(params.scope ? { scope: params.scope } : {}) };
  }, ['requested_token_type', 'audience', 'resource', 'scope', 'subject_token', 'subject_token_type']);
}

/** A client of the identity provider, as its administrator registered it for single sign-on and token exchange. */
export interface IdpClient {
  id: string;
  secret: string;
  redirect: string;
}

/** The provider's registration of `client`: the code grant for single sign-on, and token exchange. */
export const idpClientRegistration = (client: IdpClient) => ({
  client_id: client.id, client_secret: client.secret, redirect_uris: [client.redirect], response_types: ['code'],
  grant_types: ['authorization_code', TOKEN_EXCHANGE_GRANT], token_endpoint_auth_method: 'client_secret_post',
});

/** Single sign-on of `client` at the provider (the test provider signs the person in without a form): its ID token. */
export async function signInAtIdp(issuer: string, client: IdpClient): Promise<string> {
  const { followToRedirect } = await import('./browser-leg.js');
  const verifier = jose.base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = jose.base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const url = new URL(`${issuer}/auth`);
  url.search = new URLSearchParams({
    response_type: 'code', client_id: client.id, redirect_uri: client.redirect, scope: 'openid email', state: 'sso', nonce: 'n', code_challenge: challenge, code_challenge_method: 'S256',
  }).toString();
  const landed = await followToRedirect(url, client.redirect);
  const code = landed.searchParams.get('code');
  if (!code) throw new Error(`the identity provider's sign-in ended without a code: ${landed.href}`);
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: client.redirect, code_verifier: verifier, client_id: client.id, client_secret: client.secret }),
  });
  const body = await response.json() as { id_token?: string };
  if (!body.id_token) throw new Error(`the identity provider gave no ID token: ${JSON.stringify(body)}`);
  return body.id_token;
}
