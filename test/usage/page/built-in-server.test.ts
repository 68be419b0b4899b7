/**
 * The usage page signed in through the built-in authorization server (AUTH_SERVER_KEY, docs/oauth.md): a person the
 * operator names in USAGE_ADMINS (`oidc:alice`, as a token's subject) reads it with the access token a client got by
 * the whole sign-in; the same person's token does not open it on a deployment that names someone else.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { authorizationUrl, pkce, register, signIn, tokenRequest } from '../../support/authz-client.js';
import { startAuthzStack, type AuthzStack } from '../../support/authz-stack.js';
import { challengeOf } from '../../support/protected-app.js';

const REDIRECT = 'http://127.0.0.1:33418/';

/** An access token for alice, by the whole sign-in of a registered client. */
async function aliceToken(stack: AuthzStack): Promise<string> {
  const clientId = (await register(stack.origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
  const { verifier, challenge } = pkce();
  const landed = await signIn(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge }), REDIRECT);
  const tokens = await tokenRequest(stack.origin, { grant_type: 'authorization_code', code: landed.searchParams.get('code')!, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT });
  expect(tokens.status).toBe(200);
  return tokens.body.access_token as string;
}

describe('signed in through the built-in authorization server', () => {
  let named: AuthzStack;
  let other: AuthzStack;
  beforeAll(async () => {
    [named, other] = await Promise.all([
      startAuthzStack({ env: { USAGE_ADMINS: 'oidc:alice' } }),
      startAuthzStack({ env: { USAGE_ADMINS: 'oidc:bob' } }),
    ]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([named?.close(), other?.close()]);
  });

  test('alice, named in USAGE_ADMINS, reads the page and the JSON with her access token', async () => {
    const token = await aliceToken(named);
    const page = await fetch(`${named.origin}/usage`, { headers: { authorization: `Bearer ${token}` } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h2>Totals</h2>');
    const json = await fetch(`${named.origin}/usage.json`, { headers: { authorization: `Bearer ${token}` } });
    expect((await json.json()).window).toBe('day');
  }, 30_000);

  test('where bob is named instead, alice\'s token gets 403 insufficient_scope and no number; no token, 401 naming the metadata', async () => {
    const token = await aliceToken(other);
    const refused = await fetch(`${other.origin}/usage.json`, { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(403);
    expect(challengeOf(refused)).toMatchObject({ error: 'insufficient_scope', resource_metadata: `${other.origin}/mcp/oauth-protected-resource` });
    expect(await refused.text()).not.toContain('totals');
    const anonymous = await fetch(`${other.origin}/usage`);
    expect(anonymous.status).toBe(401);
    expect(challengeOf(anonymous).resource_metadata).toBe(`${other.origin}/mcp/oauth-protected-resource`);
  }, 30_000);
});
