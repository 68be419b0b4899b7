/**
 * Issue 47 item 3: the signing key is rotated without signing anyone out (docs/oauth.md "Rotating the signing key").
 * One deployment, redeployed on the same origin and shared store with each step's settings, as an operator would:
 * AUTH_SERVER_NEXT_KEY is published before it signs; then it signs (AUTH_SERVER_KEY) while the old key, now
 * AUTH_SERVER_OLD_KEY, is still published and accepted, and so is everything sealed under it (a registration, a
 * sign-in begun before the switch); once the old key is gone its tokens are refused. Every token names its key by
 * `kid`, the key's RFC 7638 thumbprint. And why step 1 comes first: while a redeploy rolls out, instances on the
 * old and the new settings serve one origin side by side, and each must accept what the other signs and seals.
 */

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../../api/mcp.js';
import { createAuthorizationServerHandler } from '../../../lib/auth/authorization-server/handler.js';
import { createProtectedResourceHandler } from '../../../lib/auth/metadata.js';
import { readSigningKey } from '../../../lib/auth/signing-key.js';
import { startLocalServer } from '../../../scripts/local-server.js';
import { authorizationUrl, callWith, codeFor, pkce, register, tokenRequest } from '../../support/authz-client.js';
import { newSigningKey, PROVIDER_CLIENT, startAuthzStack, type AuthzStack } from '../../support/authz-stack.js';
import { followToRedirect } from '../../support/browser-leg.js';
import { freePort } from '../../support/client-harness.js';
import { startOAuthServer, type OAuthServer } from '../../support/oauth-server.js';
import { createProtectedApp } from '../../support/protected-app.js';
import { startSharedRedis, type SharedRedis } from '../../support/shared-redis.js';

const REDIRECT = 'http://127.0.0.1:6276/oauth/callback';
const OLD = newSigningKey();
const NEW = newSigningKey();
const kidOf = (jwk: string) => readSigningKey(jwk).publicJwk.kid;

let port: number;
let origin: string;
let redis: SharedRedis;
let provider: OAuthServer;
let stack: AuthzStack | undefined;

/** The settings of the deployment besides its keys (startAuthzStack's, for the provider at `provider`). */
const stack0Env = () => ({
  AUTH_SERVER_PROVIDER: 'oidc', AUTH_SERVER_OIDC_ISSUER: provider.issuer, AUTH_SERVER_CLIENT_ID: PROVIDER_CLIENT.id, AUTH_SERVER_CLIENT_SECRET: PROVIDER_CLIENT.secret,
  AUTH_SERVER_ALLOW: 'alice@example.com', AUTH_SCOPES: 'agents:chat', AUTH_SERVER_SCOPES: 'agents:chat admin', PORT: String(port),
});

/** The deployment with these key variables (and the shared store, so codes and refresh tokens outlive a redeploy). */
async function deploy(keys: Record<string, string>): Promise<void> {
  await stack?.close();
  const { AUTH_SERVER_KEY, ...others } = keys;
  stack = await startAuthzStack({ port, provider, key: AUTH_SERVER_KEY, env: { ...redis.bridge.env, MCP_STATE_SECRET: 'r'.repeat(32), ...others } });
}

const headerOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;
const jwks = async () => ((await (await fetch(`${origin}/oauth/jwks`)).json()) as { keys: Array<Record<string, string>> }).keys;
const tokensFor = async (client: string) => {
  const { code, verifier } = await codeFor(origin, client, REDIRECT);
  const reply = await tokenRequest(origin, { grant_type: 'authorization_code', code: code!, code_verifier: verifier, client_id: client, redirect_uri: REDIRECT });
  expect(reply.status).toBe(200);
  return reply.body as { access_token: string; refresh_token?: string };
};

/** The consent page approved in a fresh browser: where it is sent next (the provider), and the cookies it holds for us. */
async function beginSignIn(client: string): Promise<{ provider: string; cookies: string[] }> {
  const shown = await fetch(authorizationUrl(origin, { client_id: client, redirect_uri: REDIRECT, code_challenge: pkce().challenge, state: 'mid' }));
  const pending = shown.headers.getSetCookie()[0]!.split(';')[0]!;
  const id = /name="id" value="([^"]+)"/.exec(await shown.text())![1]!;
  const decided = await fetch(`${origin}/oauth/consent`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin, cookie: pending }, body: `id=${id}&decision=approve`,
  });
  expect(decided.status).toBe(303);
  return { provider: decided.headers.get('location')!, cookies: decided.headers.getSetCookie().map((line) => line.split(';')[0]!) };
}

beforeAll(async () => {
  port = await freePort();
  origin = `http://localhost:${port}`;
  [redis, provider] = await Promise.all([startSharedRedis(), startOAuthServer({
    scopes: [], email: 'alice@example.com',
    clients: [{ client_id: PROVIDER_CLIENT.id, client_secret: PROVIDER_CLIENT.secret, redirect_uris: [`${origin}/oauth/callback`], grant_types: ['authorization_code'], response_types: ['code'] }],
  })]);
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await provider?.close();
  await redis?.stop();
});

describe('rotating the signing key', () => {
  let client: string;
  let before: { access_token: string; refresh_token?: string };
  let midway: { provider: string; cookies: string[] };
  let after: { access_token: string };

  test('every token names its key: kid is the RFC 7638 thumbprint of AUTH_SERVER_KEY', async () => {
    await deploy({ AUTH_SERVER_KEY: OLD });
    client = (await register(origin, { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'] })).body.client_id as string;
    before = await tokensFor(client);
    const { kty, crv, x, y } = JSON.parse(OLD) as Record<string, string>;
    const thumbprint = createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url');
    expect(headerOf(before.access_token)).toEqual({ alg: 'ES256', kid: thumbprint, typ: 'at+jwt' });
    expect((await jwks()).map((key) => key.kid)).toEqual([thumbprint]);
  }, 60_000);

  test('step 1: AUTH_SERVER_NEXT_KEY is published in the JWKS before it signs; tokens are still signed by AUTH_SERVER_KEY', async () => {
    await deploy({ AUTH_SERVER_KEY: OLD, AUTH_SERVER_NEXT_KEY: NEW });
    expect((await jwks()).map((key) => key.kid)).toEqual([kidOf(OLD), kidOf(NEW)]);
    expect((await jwks()).every((key) => !('d' in key))).toBe(true);
    expect(headerOf((await tokensFor(client)).access_token).kid).toBe(kidOf(OLD));
    expect((await callWith(stack!.mcpUrl, before.access_token)).status).toBe(200);
    // A person half-way through signing in when the key switches.
    midway = await beginSignIn(client);
  }, 60_000);

  test('step 2: the new key signs (new kid) while the old one is still published and accepted, and so is what it sealed', async () => {
    await deploy({ AUTH_SERVER_KEY: NEW, AUTH_SERVER_OLD_KEY: OLD });
    expect((await jwks()).map((key) => key.kid)).toEqual([kidOf(NEW), kidOf(OLD)]);
    // A token signed by the old key before the switch still opens the MCP endpoint.
    const old = await callWith(stack!.mcpUrl, before.access_token);
    expect([old.status, JSON.parse(old.body.result.content[0].text).subject]).toEqual([200, 'oidc:alice']);
    // The client registered under the old key signs in again; its new token carries the new kid.
    after = await tokensFor(client);
    expect(headerOf(after.access_token).kid).toBe(kidOf(NEW));
    expect((await callWith(stack!.mcpUrl, after.access_token)).status).toBe(200);
    // The refresh token from before the rotation renews, now with a token of the new key.
    const renewed = await tokenRequest(origin, { grant_type: 'refresh_token', refresh_token: before.refresh_token!, client_id: client });
    expect(renewed.status).toBe(200);
    expect(headerOf(renewed.body.access_token as string).kid).toBe(kidOf(NEW));
    // The sign-in begun under the old key finishes: its sealed cookie and provider state open, its PKCE verifier matches.
    const landed = await followToRedirect(midway.provider, REDIRECT, { cookies: { [origin]: midway.cookies } });
    expect([landed.searchParams.get('error'), landed.searchParams.get('state')]).toEqual([null, 'mid']);
    expect(landed.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  }, 60_000);

  test('step 3: once the old key is removed, it is no longer published and its tokens are refused; the new key\'s go on', async () => {
    await deploy({ AUTH_SERVER_KEY: NEW });
    expect((await jwks()).map((key) => key.kid)).toEqual([kidOf(NEW)]);
    const refused = await callWith(stack!.mcpUrl, before.access_token);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toContain('error="invalid_token"');
    expect((await callWith(stack!.mcpUrl, after.access_token)).status).toBe(200);
  }, 60_000);
});

describe('a redeploy rolling out over instances', () => {
  /**
   * Two instances of the deployment on one origin and store, each request to the next in turn, as a platform may
   * route while a redeploy rolls out: one still on `before`'s key settings, one already on `after`'s.
   */
  async function rollingOut(before: Record<string, string>, after: Record<string, string>) {
    await stack?.close();
    stack = undefined;
    const base = { ...stack0Env(), ...redis.bridge.env, MCP_STATE_SECRET: 'r'.repeat(32) };
    const instances = [before, after].map((keys) => {
      const env = { ...base, ...keys };
      return {
        '/api/mcp': createMcpHandler(createProtectedApp(env)),
        '/api/wk-oauth-protected-resource': createProtectedResourceHandler(env),
        '/api/oauth': createAuthorizationServerHandler(env),
      };
    });
    let next = 0;
    const functions = Object.fromEntries(Object.keys(instances[0]!).map((path) => [path,
      (request: Request) => instances[next++ % 2]![path as keyof typeof instances[0]](request)]));
    return startLocalServer({ port, functions });
  }

  /** A sign-in and a call per instance, each token tried on both; the statuses of the calls. */
  async function signInAndCall(): Promise<number[]> {
    const client = (await register(origin, { redirect_uris: [REDIRECT], client_name: `rolling ${Math.random()}` })).body.client_id as string;
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) {
      const { access_token: token } = await tokensFor(client);
      for (let j = 0; j < 2; j++) statuses.push((await callWith(`${origin}/mcp`, token)).status);
    }
    return statuses;
  }

  test('step 1 first: an instance still on the old settings accepts the tokens an instance on the new ones signs', async () => {
    const server = await rollingOut({ AUTH_SERVER_KEY: OLD, AUTH_SERVER_NEXT_KEY: NEW }, { AUTH_SERVER_KEY: NEW, AUTH_SERVER_OLD_KEY: OLD });
    try {
      expect(await signInAndCall()).toEqual([200, 200, 200, 200]);
    } finally {
      await server.close();
    }
  }, 60_000);

  test('without step 1, the instance that never heard of the new key breaks what the other sealed or signed with it', async () => {
    const server = await rollingOut({ AUTH_SERVER_KEY: OLD }, { AUTH_SERVER_KEY: NEW, AUTH_SERVER_OLD_KEY: OLD });
    try {
      const outcome = await signInAndCall().then((statuses) => (statuses.includes(401) ? 'a token refused' : 'all well'), () => 'a sign-in broken');
      expect(outcome).not.toBe('all well');
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('rotation settings', () => {
  test.each([
    ['AUTH_SERVER_NEXT_KEY', 'not a key', 'AUTH_SERVER_NEXT_KEY must be an ES256 private key as a JWK'],
    ['AUTH_SERVER_OLD_KEY', JSON.stringify({ kty: 'RSA' }), 'AUTH_SERVER_OLD_KEY must be an ES256 private key as a JWK'],
    ['AUTH_SERVER_NEXT_KEY', OLD, 'AUTH_SERVER_NEXT_KEY holds the same key as AUTH_SERVER_KEY'],
  ])('a bad %s stops the start-up, naming it', async (variable, value, message) => {
    const env = { AUTH_SERVER_KEY: OLD, [variable]: value, AUTH_SCOPES: 'agents:chat' };
    const { readAuthConfig } = await import('../../../lib/auth/config.js');
    expect(() => readAuthConfig(env)).toThrow(message);
    const { createAuthorizationServerHandler } = await import('../../../lib/auth/authorization-server/handler.js');
    expect(() => createAuthorizationServerHandler({
      ...env, AUTH_SERVER_PROVIDER: 'github', AUTH_SERVER_CLIENT_ID: 'id', AUTH_SERVER_CLIENT_SECRET: 's', AUTH_SERVER_ALLOW: 'github:id:1', PORT: '3000',
    })).toThrow(message);
  });

  test('the start-up line says a rotation is under way, and its next step', async () => {
    const { describeAuth } = await import('../../../lib/auth/index.js');
    const { readSignIn } = await import('../../../lib/auth/modes/index.js');
    expect(describeAuth({ modes: readSignIn({ AUTH_SERVER_KEY: OLD, AUTH_SERVER_NEXT_KEY: NEW }) })).toContain('(AUTH_SERVER_KEY; AUTH_SERVER_NEXT_KEY published, not yet signing)');
    expect(describeAuth({ modes: readSignIn({ AUTH_SERVER_KEY: NEW, AUTH_SERVER_OLD_KEY: OLD }) }))
      .toContain('AUTH_SERVER_OLD_KEY still accepted: remove it once its tokens have expired (15 minutes after the switch)');
  });

  test('a key of the next or old kind without AUTH_SERVER_KEY is refused, naming it', async () => {
    const { readAuthServerConfig } = await import('../../../lib/auth/authorization-server/config.js');
    expect(() => readAuthServerConfig({ AUTH_SERVER_OLD_KEY: OLD })).toThrow('AUTH_SERVER_OLD_KEY is set but AUTH_SERVER_KEY is not');
  });
});
