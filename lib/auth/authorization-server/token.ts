/**
 * POST /oauth/token (OAuth 2.1 §3.2, §4.1.3, §4.3): the authorization_code and refresh_token grants for public
 * clients (`client_id` in the body, PKCE for proof). A code is redeemed once whatever follows (a wrong client,
 * redirect URI or verifier spends it: one guess per code); a refresh token is rotated on every use, and one used
 * again revokes its family. Every refusal is `invalid_grant` or `invalid_request` with a fixed sentence. With
 * AUTH_ENTERPRISE_IDPS set, the JWT bearer grant redeems an enterprise identity provider's ID-JAG too
 * (enterprise/grant.ts).
 */

import { readCappedText } from '../../http/body.js';
import { sameMac } from '../../server/keyring.js';
import { clientDigest } from './clients.js';
import type { Reached, ServerContext } from './context.js';
import { JWT_BEARER_GRANT, redeemAssertion } from './enterprise/grant.js';
import { redeemCode, rotateRefreshToken, startFamily, type Grant } from './grants.js';
import { ACCESS_TOKEN_TTL_SEC } from './signer.js';
import { oauthError, oauthJson } from './replies.js';

const MAX_FORM_BYTES = 16 * 1024;
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const OFFLINE = 'offline_access';

const invalidGrant = (description: string) => oauthError(400, 'invalid_grant', description);
const invalidRequest = (description: string) => oauthError(400, 'invalid_request', description);

export async function token(request: Request, ctx: ServerContext, reached: Reached): Promise<Response> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers.get('content-type') ?? '')) {
    return invalidRequest('Send the token request as application/x-www-form-urlencoded.');
  }
  const text = await readCappedText(request, MAX_FORM_BYTES).catch(() => undefined);
  if (text === undefined) return invalidRequest(`The token request exceeds ${MAX_FORM_BYTES} bytes or broke off.`);
  const form = new URLSearchParams(text);
  // An enterprise client may be confidential (enterprise/grant.ts authenticates it); every other client is public.
  if (form.get('grant_type') === JWT_BEARER_GRANT && ctx.enterprise) {
    const grant = await redeemAssertion(request, form, ctx, reached);
    return grant instanceof Response ? grant : tokens(grant, grant.clientId, undefined, ctx, reached);
  }
  // Public clients only: a client secret (HTTP Basic) is an authentication this server cannot check.
  if (request.headers.get('authorization')) return oauthError(401, 'invalid_client', 'Clients here are public: send client_id in the body, no client credentials.');
  const clientId = form.get('client_id');
  if (!clientId) return invalidRequest('The token request names no client (client_id).');
  const grantType = form.get('grant_type');
  if (grantType === 'authorization_code') return redeem(form, clientId, ctx, reached);
  if (grantType === 'refresh_token') return refresh(form, clientId, ctx, reached);
  return oauthError(400, 'unsupported_grant_type', `This server accepts the authorization_code${ctx.enterprise ? ', refresh_token and JWT bearer (ID-JAG)' : ' and refresh_token'} grants.`);
}

const s256 = (verifier: string) => process.getBuiltinModule('node:crypto').createHash('sha256').update(verifier).digest('base64url');

async function redeem(form: URLSearchParams, clientId: string, ctx: ServerContext, reached: Reached): Promise<Response> {
  const code = form.get('code');
  const verifier = form.get('code_verifier');
  if (!code) return invalidRequest('The token request has no code.');
  if (!verifier) return invalidRequest('PKCE is required: the token request has no code_verifier.');
  const redeemed = await redeemCode(ctx.store, code);
  if (!redeemed.ok) {
    if (redeemed.reason === 'replayed') ctx.log.reuse.note('an authorization code redeemed twice; its refresh tokens are revoked');
    return invalidGrant(redeemed.reason === 'replayed' ? 'The authorization code was already used.' : 'The authorization code is invalid or has expired.');
  }
  const { record } = redeemed;
  if (record.client !== clientDigest(clientId)) return invalidGrant('The authorization code was issued to another client.');
  const redirectUri = form.get('redirect_uri');
  if (redirectUri === null ? record.redirectGiven : redirectUri !== record.redirectUri) return invalidGrant('The redirect_uri is not the one of the authorization request.');
  if (!VERIFIER.test(verifier) || !sameMac(s256(verifier), record.codeChallenge)) return invalidGrant('The code_verifier does not match the code_challenge.');
  const resource = form.get('resource');
  if (resource !== null && resource !== record.resource) return oauthError(400, 'invalid_target', 'The resource is not the one the code was issued for.');
  const grant: Grant = { subject: record.subject, client: record.client, scopes: record.scopes, resource: record.resource };
  const refreshToken = record.family ? await startFamily(ctx.store, record.family, grant) : undefined;
  return tokens(grant, clientId, refreshToken, ctx, reached);
}

async function refresh(form: URLSearchParams, clientId: string, ctx: ServerContext, reached: Reached): Promise<Response> {
  const presented = form.get('refresh_token');
  if (!presented) return invalidRequest('The token request has no refresh_token.');
  const rotated = await rotateRefreshToken(ctx.store, presented, clientDigest(clientId));
  if (!rotated.ok) {
    if (rotated.reason === 'reused') ctx.log.reuse.note('a refresh token used again; its family is revoked');
    return invalidGrant(rotated.reason === 'reused' || rotated.reason === 'revoked'
      ? 'The refresh token was revoked: sign in again.' : 'The refresh token is invalid or has expired.');
  }
  const resource = form.get('resource');
  if (resource !== null && resource !== rotated.grant.resource) return oauthError(400, 'invalid_target', 'The resource is not the one the refresh token was issued for.');
  // OAuth 2.1 §4.3.1: a refresh may narrow the scopes, never widen them.
  const asked = form.get('scope')?.split(' ').filter((s) => s && s !== OFFLINE);
  if (asked?.some((scope) => !rotated.grant.scopes.includes(scope))) return oauthError(400, 'invalid_scope', 'A refresh cannot add scopes; sign in again for more.');
  const grant = asked?.length ? { ...rotated.grant, scopes: asked } : rotated.grant;
  return tokens(grant, clientId, rotated.token, ctx, reached);
}

async function tokens(grant: Grant, clientId: string, refreshToken: string | undefined, ctx: ServerContext, { origin }: Reached): Promise<Response> {
  // Each deployment is its own issuer (a preview's origin is not production's): a grant is redeemed where it was made.
  if (new URL(grant.resource).origin !== origin) return invalidGrant('The grant was issued by another deployment of this server.');
  const accessToken = await ctx.sign({ issuer: origin, subject: grant.subject, audience: grant.resource, clientId, scopes: grant.scopes });
  return oauthJson({
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SEC,
    scope: [...grant.scopes, ...(refreshToken ? [OFFLINE] : [])].join(' '),
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
  });
}
