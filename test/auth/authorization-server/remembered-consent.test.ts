/**
 * Issue 47 item 3: a person's consent to a client is remembered (docs/oauth.md "Remembered consent"). The same
 * browser coming back with the same client, redirect URI and resource, for no more scopes, goes straight to the
 * provider's sign-in; anything more, or after the app revoked its token, shows the page again. At most
 * MAX_CONSENTS_PER_PERSON clients are remembered per person, the oldest dropped; AUTH_SERVER_CONSENT_DAYS=0 remembers
 * nothing. A browser is a cookie jar kept between sign-ins (browser-leg.ts).
 */

import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isRemembered, MAX_CONSENTS_PER_PERSON, personOf, rememberConsent } from '../../../lib/auth/authorization-server/remembered-consent.js';
import { readAuthServerConfig } from '../../../lib/auth/authorization-server/config.js';
import { MemoryStore } from '../../../lib/store/memory.js';
import { authorizationUrl, pkce, register, revokeRequest, signIn, tokenRequest } from '../../support/authz-client.js';
import { newSigningKey, PROVIDER_CLIENT, startAuthzStack, type AuthzStack } from '../../support/authz-stack.js';
import { freePort } from '../../support/client-harness.js';
import { startOAuthServer, type OAuthServerOptions } from '../../support/oauth-server.js';
import { memoryProvider } from '../../support/oauth-clients.js';
import { SCOPE } from '../../support/protected-app.js';

const REDIRECT = 'http://127.0.0.1:6276/oauth/callback';
const OTHER_REDIRECT = 'https://app.example/callback';
let stack: AuthzStack;

beforeAll(async () => { stack = await startAuthzStack(); }, 30_000);
afterAll(() => stack?.close());

type Browser = Record<string, string[]>;

/** A sign-in of `client` in `browser`: the consent pages it was shown, and the tokens it ends with. */
async function signInWith(browser: Browser, client: string, params: Record<string, string | null> = {}, redirect = REDIRECT) {
  const { verifier, challenge } = pkce();
  const pages: string[] = [];
  const landed = await signIn(authorizationUrl(stack.origin, { client_id: client, redirect_uri: redirect, code_challenge: challenge, state: 's', ...params }), redirect, { cookies: browser, pages });
  expect(landed.searchParams.get('error')).toBeNull();
  const reply = await tokenRequest(stack.origin, { grant_type: 'authorization_code', code: landed.searchParams.get('code')!, code_verifier: verifier, client_id: client, redirect_uri: redirect });
  expect(reply.status).toBe(200);
  return { pages: pages.length, tokens: reply.body as { access_token: string; refresh_token?: string; scope: string } };
}

let registrations = 0;
/** A new client: its name keeps it apart from one registered with the same metadata in the same second (which is the same client). */
const registered = async (uris = [REDIRECT], refresh = true) => (await register(stack.origin, {
  redirect_uris: uris, client_name: `client ${++registrations}`, grant_types: refresh ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
})).body.client_id as string;

const revoke = (client: string, token: string) => revokeRequest(stack.origin, token, client);

describe('the official SDK client signing in again', () => {
  test('the second sign-in in the same browser shows no consent page and ends with a working token', async () => {
    const browser: Browser = {};
    const url = new URL(stack.mcpUrl);
    const provider = memoryProvider({ redirect: REDIRECT });
    const counts: number[] = [];
    for (let round = 0; round < 2; round++) {
      provider.saveTokens(undefined as never);
      const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
      await expect(new Client({ name: 'again', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
      const pages: string[] = [];
      const callback = await signIn(provider.authorizationUrl!, REDIRECT, { cookies: browser, pages });
      expect(callback.searchParams.get('error')).toBeNull();
      await transport.finishAuth(callback.searchParams.get('code')!, callback.searchParams.get('iss') ?? undefined);
      counts.push(pages.length);
      if (round === 0) expect(pages[0]).toContain('Your answer is remembered for 30 days');
      const client = new Client({ name: 'again', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
      const who = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: Array<{ text: string }> };
      expect(JSON.parse(who.content[0]!.text)).toMatchObject({ subject: 'oidc:alice', scopes: [SCOPE] });
      await client.close();
    }
    expect(counts).toEqual([1, 0]);
  }, 60_000);

  test('another browser, with no record of who signed in there, is shown the page', async () => {
    const client = await registered();
    expect((await signInWith({}, client)).pages).toBe(1);
    expect((await signInWith({}, client)).pages).toBe(1);
  }, 30_000);
});

describe('what a remembered consent covers', () => {
  test('no more than was allowed: wider scopes, or offline access not allowed before, show the page again', async () => {
    const browser: Browser = {};
    const client = await registered([REDIRECT], false);
    expect((await signInWith(browser, client, { scope: SCOPE })).pages).toBe(1);
    expect((await signInWith(browser, client, { scope: SCOPE })).pages).toBe(0);
    expect((await signInWith(browser, client, { scope: `${SCOPE} admin` })).pages).toBe(1);
    // Allowed both now: either alone is covered.
    expect((await signInWith(browser, client, { scope: 'admin' })).pages).toBe(0);
    expect((await signInWith(browser, client, { scope: `${SCOPE} offline_access` })).pages).toBe(1);
  }, 60_000);

  test('the same client with another redirect URI, or for another resource, is shown the page', async () => {
    const browser: Browser = {};
    const client = await registered([REDIRECT, OTHER_REDIRECT]);
    expect((await signInWith(browser, client)).pages).toBe(1);
    expect((await signInWith(browser, client, {}, OTHER_REDIRECT)).pages).toBe(1);
    expect((await signInWith(browser, client, { resource: `${stack.origin}/api/mcp` })).pages).toBe(1);
    expect((await signInWith(browser, client)).pages).toBe(0);
    // Another client with the same redirect URI was never allowed.
    expect((await signInWith(browser, await registered())).pages).toBe(1);
  }, 60_000);

  test('prompt=consent asks again, except beside offline_access when offline access was allowed (OpenID Connect Core §11)', async () => {
    const browser: Browser = {};
    const client = await registered();
    expect((await signInWith(browser, client, { scope: `${SCOPE} offline_access`, prompt: 'consent' })).pages).toBe(1);
    expect((await signInWith(browser, client, { scope: `${SCOPE} offline_access`, prompt: 'consent' })).pages).toBe(0);
    expect((await signInWith(browser, client, { scope: SCOPE, prompt: 'consent' })).pages).toBe(1);
  }, 60_000);
});

describe('revoking', () => {
  test('the app revoking its refresh token (RFC 7009) forgets the consent: the next sign-in shows the page', async () => {
    const browser: Browser = {};
    const client = await registered();
    expect((await signInWith(browser, client)).pages).toBe(1);
    const { pages, tokens } = await signInWith(browser, client);
    expect(pages).toBe(0);
    expect(await revoke(client, tokens.refresh_token!)).toBe(200);
    expect((await signInWith(browser, client)).pages).toBe(1);
    expect((await signInWith(browser, client)).pages).toBe(0);
  }, 60_000);

  test('revoking an access token does too, but only when the client sending it is the one it was issued to', async () => {
    const browser: Browser = {};
    const client = await registered([REDIRECT], false);
    const { tokens } = await signInWith(browser, client);
    expect(await revoke(await registered(), tokens.access_token)).toBe(200);
    expect((await signInWith(browser, client)).pages).toBe(0);
    expect(await revoke(client, tokens.access_token)).toBe(200);
    expect((await signInWith(browser, client)).pages).toBe(1);
  }, 60_000);
});

describe('bounds', () => {
  test(`at most ${MAX_CONSENTS_PER_PERSON} clients are remembered per person: one more drops the one allowed longest ago`, async () => {
    const browser: Browser = {};
    const clients: string[] = [];
    for (let i = 0; i <= MAX_CONSENTS_PER_PERSON; i++) {
      clients.push(await registered([REDIRECT], false));
      expect((await signInWith(browser, clients[i]!)).pages).toBe(1);
    }
    expect((await signInWith(browser, clients[1]!)).pages).toBe(0);
    expect((await signInWith(browser, clients[MAX_CONSENTS_PER_PERSON]!)).pages).toBe(0);
    expect((await signInWith(browser, clients[0]!)).pages).toBe(1);
  }, 120_000);

  test('a consent lapses AUTH_SERVER_CONSENT_DAYS after it was given on the page, however often it is used, and sooner if the setting is shortened', async () => {
    const store = new MemoryStore();
    const person = personOf('oidc:alice');
    const given = { client: 'c', redirectUri: REDIRECT, resource: 'http://localhost/mcp', scopes: [SCOPE], offline: false };
    const day = 24 * 3600_000;
    await rememberConsent(store, person, given, 30 * day, 0);
    expect(await isRemembered(store, person, given, 30 * day, 30 * day - 1)).toBe(true);
    expect(await isRemembered(store, person, given, 30 * day, 30 * day)).toBe(false);
    expect(await isRemembered(store, person, given, 7 * day, 7 * day)).toBe(false);
  });

  test('a remembered consent is a security record: a flood of callers\' state filling the store does not evict it', async () => {
    const store = new MemoryStore({ maxBytes: 64 * 1024, maxEntries: 200, maxBytesPerCaller: 16 * 1024, maxBytesSecurity: 16 * 1024 });
    const person = personOf('oidc:alice');
    const given = { client: 'c', redirectUri: REDIRECT, resource: 'http://localhost/mcp', scopes: [SCOPE], offline: false };
    await rememberConsent(store, person, given, 3600_000);
    for (let i = 0; i < 1000; i++) {
      const budget = i % 2 ? 'anonymous' as const : { owner: `caller-${i % 7}` };
      await store.withBudget(budget).set(`flood:${i}`, 'x'.repeat(500), 3600_000).catch(() => undefined);
    }
    expect(await store.get('flood:999')).toBeDefined();
    expect(await isRemembered(store, person, given, 3600_000)).toBe(true);
  });

  test('AUTH_SERVER_CONSENT_DAYS=0 remembers nothing: the page every time', async () => {
    const never = await startAuthzStack({ env: { AUTH_SERVER_CONSENT_DAYS: '0' } });
    try {
      const client = (await register(never.origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
      const browser: Browser = {};
      for (let i = 0; i < 2; i++) {
        const pages: string[] = [];
        await signIn(authorizationUrl(never.origin, { client_id: client, redirect_uri: REDIRECT, code_challenge: pkce().challenge }), REDIRECT, { cookies: browser, pages });
        expect(pages).toHaveLength(1);
        expect(pages[0]).not.toContain('remembered');
      }
      expect(Object.values(browser).flat().some((cookie) => cookie.startsWith('amcp_oauth_person='))).toBe(false);
    } finally {
      await never.close();
    }
  }, 60_000);

  test.each(['-1', '1.5', '366', 'thirty'])('AUTH_SERVER_CONSENT_DAYS=%s stops the start-up, naming it', (value) => {
    expect(() => readAuthServerConfig({ ...stack.env, AUTH_SERVER_KEY: newSigningKey(), AUTH_SERVER_CONSENT_DAYS: value }))
      .toThrow('AUTH_SERVER_CONSENT_DAYS must be a whole number of days from 0 (never remember consent) to 365');
  });

  test('the default is 30 days', () => {
    expect(readAuthServerConfig(stack.env)!.consentTtlMs).toBe(30 * 24 * 3600_000);
  });
});

describe('another person in a browser that remembers one', () => {
  test('where a remembered consent skipped the page but someone else signs in at the provider, that person is refused, and asked next time', async () => {
    const port = await freePort();
    const origin = `http://localhost:${port}`;
    // Whoever the provider signs in, changed between sign-ins (it reads these options at each one).
    const people: OAuthServerOptions = {
      scopes: [], account: 'alice', email: 'alice@example.com',
      clients: [{ client_id: PROVIDER_CLIENT.id, client_secret: PROVIDER_CLIENT.secret, redirect_uris: [`${origin}/oauth/callback`], grant_types: ['authorization_code'], response_types: ['code'] }],
    };
    const provider = await startOAuthServer(people);
    const shared = await startAuthzStack({ port, provider, allow: 'alice@example.com, bob@example.com' });
    try {
      const client = (await register(origin, { redirect_uris: [REDIRECT], client_name: 'shared browser' })).body.client_id as string;
      const browser: Browser = {};
      const attempt = async () => {
        const pages: string[] = [];
        const landed = await signIn(authorizationUrl(origin, { client_id: client, redirect_uri: REDIRECT, code_challenge: pkce().challenge }), REDIRECT, { cookies: browser, pages });
        return { pages: pages.length, code: landed.searchParams.get('code') };
      };
      const as = (account: string) => {
        people.account = account;
        people.email = `${account}@example.com`;
        delete browser[new URL(provider.issuer).origin];
      };
      expect((await attempt()).pages).toBe(1);
      expect((await attempt()).pages).toBe(0);
      as('bob');
      await expect(attempt()).rejects.toThrow('You signed in as someone other than the person who allowed this app before, and you were not asked');
      const asked = await attempt();
      expect(asked.pages).toBe(1);
      expect(asked.code).toBeTruthy();
      expect((await attempt()).pages).toBe(0);
      // Alice, in the browser that now names bob, is covered by her own remembered consent.
      as('alice');
      const back = await attempt();
      expect([back.pages, Boolean(back.code)]).toEqual([0, true]);
    } finally {
      await shared.close();
      await provider.close();
    }
  }, 60_000);
});
