/**
 * Preview deployments: each is its own issuer (its origin), but the provider knows one callback URL, production's.
 * With AUTH_SERVER_CALLBACK_URL set to it, a preview sends people to sign in with production's callback; production
 * hands the provider's answer on to the preview that started the sign-in, which finishes it. Production hands on
 * only what a deployment with the same key sealed, so its callback is no open redirect.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { authorizationUrl, callWith, pkce, register, signIn, tokenRequest } from '../../support/authz-client.js';
import { newSigningKey, startAuthzStack, type AuthzStack } from '../../support/authz-stack.js';
import { followToRedirect } from '../../support/browser-leg.js';

const REDIRECT = 'http://127.0.0.1:6276/oauth/callback';
const key = newSigningKey();
let production: AuthzStack;
let preview: AuthzStack;

beforeAll(async () => {
  production = await startAuthzStack({ key });
  preview = await startAuthzStack({ key, provider: production.provider, env: { AUTH_SERVER_CALLBACK_URL: `${production.origin}/oauth/callback` } });
}, 30_000);
afterAll(async () => {
  await preview?.close();
  await production?.close();
});

describe('a preview deployment signing in through production\'s callback', () => {
  test('the provider returns to production, which hands the sign-in to the preview; the token is the preview\'s alone', async () => {
    const client = (await register(preview.origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
    const { verifier, challenge } = pkce();
    const visited: string[] = [];
    const landed = await signIn(authorizationUrl(preview.origin, { client_id: client, redirect_uri: REDIRECT, code_challenge: challenge, state: 'p' }), REDIRECT, { visited });
    const hops = visited.map((url) => new URL(url)).filter((url) => url.pathname === '/oauth/callback').map((url) => url.origin);
    expect(hops).toEqual([production.origin, preview.origin]);
    expect(landed.searchParams.get('iss')).toBe(preview.origin);
    const tokens = await tokenRequest(preview.origin, { grant_type: 'authorization_code', code: landed.searchParams.get('code')!, code_verifier: verifier, client_id: client, redirect_uri: REDIRECT });
    expect(tokens.status).toBe(200);
    expect((await callWith(preview.mcpUrl, tokens.body.access_token as string)).status).toBe(200);
    expect((await callWith(production.mcpUrl, tokens.body.access_token as string)).status).toBe(401);
  }, 30_000);

  test('production does not hand on a callback whose sealed origin was changed, or one sealed under another key', async () => {
    const client = (await register(preview.origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
    const callback = await followToRedirect(authorizationUrl(preview.origin, { client_id: client, redirect_uri: REDIRECT, code_challenge: pkce().challenge }), `${production.origin}/oauth/callback`);
    const [payload, mac] = callback.searchParams.get('state')!.split('.');
    const elsewhere = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), o: 'https://evil.example' })).toString('base64url');
    callback.searchParams.set('state', `${elsewhere}.${mac}`);
    const changed = await fetch(callback, { redirect: 'manual' });
    expect([changed.status, changed.headers.get('location')]).toEqual([400, null]);

    const other = await startAuthzStack({ key: newSigningKey() });
    try {
      const otherClient = (await register(other.origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
      const foreign = await followToRedirect(authorizationUrl(other.origin, { client_id: otherClient, redirect_uri: REDIRECT, code_challenge: pkce().challenge }), `${other.origin}/oauth/callback`);
      const atProduction = new URL(`${production.origin}/oauth/callback${foreign.search}`);
      const refused = await fetch(atProduction, { redirect: 'manual' });
      expect([refused.status, refused.headers.get('location')]).toEqual([400, null]);
    } finally {
      await other.close();
    }
  }, 30_000);
});
