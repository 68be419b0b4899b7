/**
 * The built-in authorization server across instances: two agent-mcp processes on one real redis-server (behind
 * the Upstash REST bridge), one public origin in front of them that sends each request to the next process in
 * turn, as a platform's load balancer may. A sign-in whose steps land on alternate processes completes; a code
 * redeemed on two processes at once succeeds once; a refresh token rotated on one and reused on the other revokes
 * the family on both; a consent remembered through one is honoured and revoked on both; registrations and pending
 * sign-ins put nothing in the store.
 */

import { createServer, request as httpRequest, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { authorizationUrl, codeFor, pkce, register, revokeRequest, signIn, tokenRequest } from '../support/authz-client.js';
import { newSigningKey, PROVIDER_CLIENT } from '../support/authz-stack.js';
import { freePort } from '../support/client-harness.js';
import { startInstances, type Instances } from '../support/instances.js';
import { startOAuthServer, type OAuthServer } from '../support/oauth-server.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';

const REDIRECT = 'http://127.0.0.1:6276/oauth/callback';
let redis: SharedRedis;
let provider: OAuthServer;
let instances: Instances;
let balancer: Server;
let origin: string;
/** Which process served each request through the balancer, in order. */
const servedBy: number[] = [];

/** Round-robin HTTP forwarding to the processes, Host kept (the origin is PUBLIC_URL, as on a platform). */
function startBalancer(port: number, targets: string[]): Promise<Server> {
  let next = 0;
  const server = createServer((req, res) => {
    const index = next++ % targets.length;
    servedBy.push(index);
    const target = new URL(targets[index]!);
    const forward = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (reply) => {
      res.writeHead(reply.statusCode!, reply.headers);
      reply.pipe(res);
    });
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  const port = await freePort();
  origin = `http://localhost:${port}`;
  [redis, provider] = await Promise.all([startSharedRedis(), startOAuthServer({
    scopes: [], email: 'alice@example.com',
    clients: [{ client_id: PROVIDER_CLIENT.id, client_secret: PROVIDER_CLIENT.secret, redirect_uris: [`${origin}/oauth/callback`], grant_types: ['authorization_code'], response_types: ['code'] }],
  })]);
  instances = await startInstances(2, {
    ...redis.bridge.env, INSTANCE_APP: 'default', MCP_STATE_SECRET: 's'.repeat(32), PUBLIC_URL: origin,
    AUTH_SERVER_KEY: newSigningKey(), AUTH_SERVER_PROVIDER: 'oidc', AUTH_SERVER_OIDC_ISSUER: provider.issuer,
    AUTH_SERVER_CLIENT_ID: PROVIDER_CLIENT.id, AUTH_SERVER_CLIENT_SECRET: PROVIDER_CLIENT.secret, AUTH_SERVER_ALLOW: 'alice@example.com', AUTH_SCOPES: 'agents:chat',
  });
  balancer = await startBalancer(port, instances.urls.map((url) => new URL(url).origin));
}, 60_000);
afterAll(async () => {
  await new Promise((resolve) => balancer?.close(resolve));
  await instances?.stop();
  await provider?.close();
  await redis?.stop();
});

const keys = async () => (await redis.direct.send([['KEYS', '*']]))[0] as string[];
const redeem = (client: string, code: string, verifier: string) =>
  tokenRequest(origin, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client, redirect_uri: REDIRECT });
const refresh = (client: string, token: string) => tokenRequest(origin, { grant_type: 'refresh_token', refresh_token: token, client_id: client });
const direct = (index: number) => new URL(instances.urls[index]!).origin;

describe('the built-in authorization server on two processes', () => {
  test('a sign-in whose steps alternate between the processes completes, and either process accepts the token', async () => {
    const client = (await register(origin, { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'] })).body.client_id as string;
    const from = servedBy.length;
    const { code, verifier } = await codeFor(origin, client, REDIRECT);
    // authorize, consent and callback went to alternate processes.
    expect(new Set(servedBy.slice(from))).toEqual(new Set([0, 1]));
    const tokens = await redeem(client, code!, verifier);
    expect(tokens.status).toBe(200);
    for (const index of [0, 1]) {
      const listed = await fetch(`${origin}/mcp`, {
        method: 'POST',
        headers: { host: new URL(origin).host, authorization: `Bearer ${tokens.body.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: index, method: 'tools/list' }),
      });
      expect(listed.status).toBe(200);
    }
  }, 60_000);

  test('one code redeemed on both processes at once succeeds exactly once', async () => {
    const client = (await register(origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
    const { code, verifier } = await codeFor(origin, client, REDIRECT);
    const form = { grant_type: 'authorization_code', code: code!, code_verifier: verifier, client_id: client, redirect_uri: REDIRECT };
    const replies = await Promise.all([0, 1].map((index) => tokenRequest(direct(index), form)));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 400]);
  }, 60_000);

  test('a refresh token rotated on one process and reused on the other revokes the family on both', async () => {
    const client = (await register(origin, { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'] })).body.client_id as string;
    const { code, verifier } = await codeFor(origin, client, REDIRECT);
    const first = (await redeem(client, code!, verifier)).body.refresh_token as string;
    const rotated = await tokenRequest(direct(0), { grant_type: 'refresh_token', refresh_token: first, client_id: client });
    expect(rotated.status).toBe(200);
    expect((await tokenRequest(direct(1), { grant_type: 'refresh_token', refresh_token: first, client_id: client })).body).toMatchObject({ error: 'invalid_grant' });
    expect((await tokenRequest(direct(0), { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token as string, client_id: client })).body)
      .toEqual({ error: 'invalid_grant', error_description: 'The refresh token was revoked: sign in again.' });
  }, 60_000);

  test('a consent remembered through one process skips the page on both; revoked on one, the page is back on the other', async () => {
    const client = (await register(origin, { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], client_name: 'remembered' })).body.client_id as string;
    const browser: Record<string, string[]> = {};
    /** The next request through the balancer goes to process `index`. */
    const nextOn = async (index: number) => {
      while (servedBy.length % 2 !== index) await fetch(`${origin}/oauth/jwks`);
    };
    const attempt = async () => {
      const { verifier, challenge } = pkce();
      const pages: string[] = [];
      const landed = await signIn(authorizationUrl(origin, { client_id: client, redirect_uri: REDIRECT, code_challenge: challenge }), REDIRECT, { cookies: browser, pages });
      return { pages: pages.length, tokens: (await redeem(client, landed.searchParams.get('code')!, verifier)).body };
    };
    expect((await attempt()).pages).toBe(1);
    let refreshToken = '';
    for (const index of [0, 1]) {
      await nextOn(index);
      const again = await attempt();
      expect(again.pages).toBe(0);
      refreshToken = again.tokens.refresh_token as string;
    }
    expect(await revokeRequest(direct(0), refreshToken, client)).toBe(200);
    await nextOn(1);
    expect((await attempt()).pages).toBe(1);
  }, 60_000);

  test('registrations and authorization requests put nothing in the store; a sign-in keeps its code there by digest only', async () => {
    const before = await keys();
    const client = (await register(origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
    for (let i = 0; i < 20; i++) await register(origin, { redirect_uris: [REDIRECT], client_name: `flood ${i}` });
    for (let i = 0; i < 20; i++) await fetch(authorizationUrl(origin, { client_id: client, redirect_uri: REDIRECT, code_challenge: pkce().challenge }));
    expect(await keys()).toEqual(before);
    const landed = await signIn(authorizationUrl(origin, { client_id: client, redirect_uri: REDIRECT, code_challenge: pkce().challenge }), REDIRECT);
    const added = (await keys()).filter((key) => !before.includes(key));
    // The code by its digest and, at a person's first sign-in, their remembered consents, named by a digest of them.
    expect(added.filter((key) => /oauth-code/.test(key))).toHaveLength(1);
    expect(added.filter((key) => !/oauth-code|oauth-consents/.test(key))).toEqual([]);
    expect(added.join(' ')).not.toContain(landed.searchParams.get('code'));
    expect(added.join(' ')).not.toContain('alice');
  }, 60_000);
});
