/**
 * Attacks on the built-in authorization server, each refused (issue 27 "Attacks refused"), through real HTTP
 * against the server and the test OpenID provider: code replay, a code redeemed by another client, PKCE missing,
 * `plain` or wrong, redirect URI mismatch and open redirects, state tampering, refresh-token reuse, a token for
 * another resource, a forged provider callback, and the consent page answered from another site.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newSigningKey, startAuthzStack, type AuthzStack } from '../../support/authz-stack.js';
import { followToRedirect } from '../../support/browser-leg.js';
import { authorizationUrl, callWith, codeFor, pkce, register, signIn, tokenRequest } from '../../support/authz-client.js';

const REDIRECT = 'http://127.0.0.1:6276/oauth/callback';
let stack: AuthzStack;
let clientId: string;

beforeAll(async () => {
  stack = await startAuthzStack();
  clientId = (await register(stack.origin, { redirect_uris: [REDIRECT], client_name: 'victim app', grant_types: ['authorization_code', 'refresh_token'] })).body.client_id as string;
}, 30_000);
afterAll(() => stack?.close());

const redeem = (code: string, verifier: string, client = clientId, extra: Record<string, string> = {}) =>
  tokenRequest(stack.origin, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client, redirect_uri: REDIRECT, ...extra });
const refresh = (token: string, client = clientId) => tokenRequest(stack.origin, { grant_type: 'refresh_token', refresh_token: token, client_id: client });

describe('authorization codes', () => {
  test('a code redeemed a second time is refused, and the refresh token the first redemption got is revoked with it', async () => {
    const { code, verifier } = await codeFor(stack.origin, clientId, REDIRECT);
    const first = await redeem(code!, verifier);
    expect(first.status).toBe(200);
    const replay = await redeem(code!, verifier);
    expect(replay).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'The authorization code was already used.' } });
    expect((await refresh(first.body.refresh_token as string)).body).toMatchObject({ error: 'invalid_grant', error_description: 'The refresh token was revoked: sign in again.' });
  }, 30_000);

  test('a code redeemed by another client is refused, and is spent for its own client too', async () => {
    const other = (await register(stack.origin, { redirect_uris: [REDIRECT], client_name: 'attacker' })).body.client_id as string;
    const { code, verifier } = await codeFor(stack.origin, clientId, REDIRECT);
    expect((await redeem(code!, verifier, other)).body).toEqual({ error: 'invalid_grant', error_description: 'The authorization code was issued to another client.' });
    expect((await redeem(code!, verifier)).body).toMatchObject({ error: 'invalid_grant' });
  }, 30_000);

  test('a code this server never issued is refused', async () => {
    expect((await redeem('A'.repeat(43), pkce().verifier)).body).toEqual({ error: 'invalid_grant', error_description: 'The authorization code is invalid or has expired.' });
  });
});

describe('PKCE', () => {
  test.each([
    ['missing', { code_challenge: null, code_challenge_method: null }, 'PKCE is required: send code_challenge with code_challenge_method=S256.'],
    ['plain', { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, 'Only the S256 PKCE method is accepted (code_challenge_method=S256).'],
    ['without a method (plain by default)', { code_challenge: 'a'.repeat(43), code_challenge_method: null }, 'Only the S256 PKCE method is accepted (code_challenge_method=S256).'],
  ])('an authorization request with PKCE %s is refused as invalid_request, on a page before anyone approved the client (approvals.test.ts)', async (_, params, description) => {
    const response = await fetch(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: REDIRECT, state: 'st', ...params }), { redirect: 'manual' });
    expect([response.status, response.headers.get('location')]).toEqual([400, null]);
    const page = await response.text();
    expect(page).toContain(description);
    expect(page).toContain('error=invalid_request');
  });

  test('a wrong verifier is refused (and spends the code); a missing one is invalid_request', async () => {
    const { code, verifier } = await codeFor(stack.origin, clientId, REDIRECT);
    expect((await tokenRequest(stack.origin, { grant_type: 'authorization_code', code: code!, client_id: clientId, redirect_uri: REDIRECT })).body)
      .toEqual({ error: 'invalid_request', error_description: 'PKCE is required: the token request has no code_verifier.' });
    expect((await redeem(code!, pkce().verifier)).body).toEqual({ error: 'invalid_grant', error_description: 'The code_verifier does not match the code_challenge.' });
    expect((await redeem(code!, verifier)).body).toMatchObject({ error: 'invalid_grant' });
  }, 30_000);
});

describe('redirect URIs', () => {
  test.each([
    ['another host', 'https://evil.example/callback'],
    ['another path on the registered host', 'http://127.0.0.1:6276/other'],
    ['the registered URI with a query added', `${REDIRECT}?next=https://evil.example`],
    ['a non-loopback http host', 'http://evil.example:6276/oauth/callback'],
  ])('a redirect URI the client did not register (%s) gets a page, never a redirect', async (_, uri) => {
    const { challenge } = pkce();
    const response = await fetch(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: uri, code_challenge: challenge }), { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    const page = await response.text();
    expect(page).toContain('The redirect URI is not one this client registered.');
    expect(page).not.toContain('evil.example');
  });

  test('an unknown client gets a page, never a redirect, even to a URI it names', async () => {
    const response = await fetch(authorizationUrl(stack.origin, { client_id: 'made-up', redirect_uri: 'https://evil.example/cb', code_challenge: pkce().challenge }), { redirect: 'manual' });
    expect([response.status, response.headers.get('location')]).toEqual([400, null]);
    expect(await response.text()).toContain('This client is not registered with this server.');
  });

  test('the token request must name the redirect URI of the authorization request', async () => {
    const { code, verifier } = await codeFor(stack.origin, clientId, REDIRECT);
    expect((await redeem(code!, verifier, clientId, { redirect_uri: 'http://127.0.0.1:6276/other' })).body)
      .toEqual({ error: 'invalid_grant', error_description: 'The redirect_uri is not the one of the authorization request.' });
  }, 30_000);

  test('a registration with a redirect URI that would run script or open local files is refused', async () => {
    for (const uri of ['javascript:alert(1)//', 'data:text/html,hi', 'file:///etc/passwd', 'http://evil.example/cb', 'https://app.example/cb#frag']) {
      const { status, body } = await register(stack.origin, { redirect_uris: [uri] });
      expect([status, body.error]).toEqual([400, 'invalid_redirect_uri']);
    }
  });
});

describe('state', () => {
  test('the client\'s state comes back exactly as sent, with iss, whatever characters it holds', async () => {
    const state = 'a b&c=d/é?%20"<>';
    const { landed } = await codeFor(stack.origin, clientId, REDIRECT, { state });
    expect(landed.searchParams.get('state')).toBe(state);
    expect(landed.searchParams.get('iss')).toBe(stack.origin);
  }, 30_000);

  test('a pending request whose sealed state, redirect URI or challenge was altered in the cookie is refused at consent', async () => {
    const { challenge } = pkce();
    const shown = await fetch(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, state: 'honest' }));
    const cookie = shown.headers.getSetCookie()[0]!.split(';')[0]!;
    const id = /name="id" value="([^"]+)"/.exec(await shown.text())![1]!;
    const [name, value] = [cookie.slice(0, cookie.indexOf('=')), cookie.slice(cookie.indexOf('=') + 1)];
    const [payload, mac] = value.split('.');
    const pending = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const consent = (cookieValue: string) => fetch(`${stack.origin}/oauth/consent`, {
      method: 'POST', redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: stack.origin, cookie: `${name}=${cookieValue}` },
      body: new URLSearchParams({ id, decision: 'approve' }).toString(),
    });
    for (const change of [{ state: 'tampered' }, { redirectUri: 'https://evil.example/cb' }, { codeChallenge: pkce().challenge }]) {
      const tampered = Buffer.from(JSON.stringify({ ...pending, ...change })).toString('base64url');
      const response = await consent(`${tampered}.${mac}`);
      expect([response.status, response.headers.get('location')]).toEqual([400, null]);
      expect(await response.text()).toContain('This sign-in request has expired or was started in another browser');
    }
    expect((await consent(value)).status).toBe(303);
  });
});

describe('refresh tokens', () => {
  test('a refresh token used a second time revokes its family: the token the first use got stops working too', async () => {
    const { code, verifier } = await codeFor(stack.origin, clientId, REDIRECT);
    const issued = (await redeem(code!, verifier)).body.refresh_token as string;
    const rotated = await refresh(issued);
    expect(rotated.status).toBe(200);
    const next = rotated.body.refresh_token as string;
    expect(next).not.toBe(issued);
    expect((await refresh(issued)).body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token was revoked: sign in again.' });
    expect((await refresh(next)).body).toEqual({ error: 'invalid_grant', error_description: 'The refresh token was revoked: sign in again.' });
  }, 30_000);

  test('two uses of one refresh token at once: one rotates, and the race revokes the family', async () => {
    const { code, verifier } = await codeFor(stack.origin, clientId, REDIRECT);
    const issued = (await redeem(code!, verifier)).body.refresh_token as string;
    const [a, b] = await Promise.all([refresh(issued), refresh(issued)]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
    const winner = (a.status === 200 ? a : b).body.refresh_token as string;
    expect((await refresh(winner)).body).toMatchObject({ error: 'invalid_grant' });
  }, 30_000);

  test('a refresh token presented by another client is refused and stays usable by its own', async () => {
    const other = (await register(stack.origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
    const { code, verifier } = await codeFor(stack.origin, clientId, REDIRECT);
    const issued = (await redeem(code!, verifier)).body.refresh_token as string;
    expect((await refresh(issued, other)).body).toMatchObject({ error: 'invalid_grant' });
    expect((await refresh(issued)).status).toBe(200);
  }, 30_000);

  test('revoking a refresh token (RFC 7009) ends its family', async () => {
    const { code, verifier } = await codeFor(stack.origin, clientId, REDIRECT);
    const issued = (await redeem(code!, verifier)).body.refresh_token as string;
    const revoked = await fetch(`${stack.origin}/oauth/revoke`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: issued, client_id: clientId }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect((await refresh(issued)).body).toMatchObject({ error: 'invalid_grant' });
  }, 30_000);
});

describe('audiences', () => {
  test('an authorization request for another resource is refused (invalid_target)', async () => {
    const response = await fetch(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, resource: 'https://other.example/mcp' }), { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('error=invalid_target');
  });

  test('a token from this server is refused by another deployment holding the same signing key', async () => {
    const key = newSigningKey();
    const [a, b] = [await startAuthzStack({ key }), await startAuthzStack({ key })];
    try {
      const id = (await register(a.origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
      const { code, verifier } = await codeFor(a.origin, id, REDIRECT);
      const { access_token: token } = (await tokenRequest(a.origin, { grant_type: 'authorization_code', code: code!, code_verifier: verifier, client_id: id, redirect_uri: REDIRECT })).body;
      expect((await callWith(a.mcpUrl, token as string)).status).toBe(200);
      const elsewhere = await callWith(b.mcpUrl, token as string);
      expect(elsewhere.status).toBe(401);
      expect(elsewhere.challenge).toContain('error="invalid_token"');
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);
});

describe('the provider\'s callback', () => {
  const callbackOf = async () => {
    // An attacker starts a sign-in in its own browser and stops where the provider sends it back to us.
    const url = authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge });
    return followToRedirect(url, `${stack.origin}/oauth/callback`);
  };

  test('the attacker\'s own callback, sent into a victim\'s browser (login CSRF), issues nothing', async () => {
    const forged = await callbackOf();
    const response = await fetch(forged, { redirect: 'manual' });
    expect([response.status, response.headers.get('location')]).toEqual([400, null]);
    expect(await response.text()).toContain('was started in another browser');
  }, 30_000);

  test('a callback whose state this server did not seal is refused', async () => {
    const forged = await callbackOf();
    forged.searchParams.set('state', 'made-up.state');
    const response = await fetch(forged, { redirect: 'manual' });
    expect([response.status, await response.text()]).toEqual([400, expect.stringContaining('not one this server started')]);
  }, 30_000);

  test('our sign-in at the provider carries its own state and an S256 challenge', async () => {
    const visited: string[] = [];
    await followToRedirect(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge }), REDIRECT, { visited });
    const atProvider = new URL(visited.find((u) => u.startsWith(`${stack.provider.issuer}/auth?`))!);
    expect(atProvider.searchParams.get('code_challenge_method')).toBe('S256');
    expect(atProvider.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(atProvider.searchParams.get('state')).toMatch(/\./);
    expect(atProvider.searchParams.get('nonce')).toBeTruthy();
  }, 30_000);
});

describe('the consent page', () => {
  test('it cannot be framed and is never cached', async () => {
    const response = await fetch(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge }));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).not.toContain('<script');
  });

  test('a decision posted from another site is refused', async () => {
    const shown = await fetch(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge }));
    const cookie = shown.headers.getSetCookie()[0]!.split(';')[0]!;
    const id = /name="id" value="([^"]+)"/.exec(await shown.text())![1]!;
    const post = (headers: Record<string, string>) => fetch(`${stack.origin}/oauth/consent`, {
      method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: `id=${id}&decision=approve`,
    });
    // Another site's page: its Origin, and (SameSite=Lax) none of our cookies.
    expect((await post({ origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ origin: 'https://evil.example', cookie })).status).toBe(403);
    expect((await post({})).status).toBe(400);
    expect((await post({ origin: stack.origin, cookie })).status).toBe(303);
  });

  test('denying sends the client access_denied, and nothing is issued', async () => {
    const landed = await signIn(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, state: 'd' }), REDIRECT, { decision: 'deny' });
    expect(Object.fromEntries(landed.searchParams)).toEqual({ error: 'access_denied', error_description: 'The person denied access.', state: 'd', iss: stack.origin });
  });
});

describe('the allow-list', () => {
  test('someone the allow-list does not name signs in at the provider and is sent back with access_denied', async () => {
    const strict = await startAuthzStack({ allow: 'bob@example.com, *@example.org' });
    try {
      const id = (await register(strict.origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
      const { landed } = await codeFor(strict.origin, id, REDIRECT);
      expect(landed.searchParams.get('error')).toBe('access_denied');
      expect(landed.searchParams.get('code')).toBeNull();
    } finally {
      await strict.close();
    }
  }, 30_000);

  test('an email the provider has not verified does not count', async () => {
    const unverified = await startAuthzStack({ person: { emailVerified: false } });
    try {
      const id = (await register(unverified.origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
      expect((await codeFor(unverified.origin, id, REDIRECT)).landed.searchParams.get('error')).toBe('access_denied');
    } finally {
      await unverified.close();
    }
  }, 30_000);

  test('an email domain entry lets in its addresses', async () => {
    const domain = await startAuthzStack({ allow: '*@example.com' });
    try {
      const id = (await register(domain.origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
      expect((await codeFor(domain.origin, id, REDIRECT)).code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      await domain.close();
    }
  }, 30_000);
});
