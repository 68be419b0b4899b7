/**
 * Enterprise sign-in across instances: two agent-mcp processes on one real redis-server (behind the Upstash REST
 * bridge), one public origin (PUBLIC_URL), an enterprise identity provider on loopback. An ID-JAG redeemed on one
 * process is spent on the other too, and two processes redeeming it at once redeem it once (MCP Enterprise-Managed
 * Authorization §7.4.2): its single use is an atomic claim in the shared store, a security record that lives until
 * the assertion expires.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newSigningKey } from '../support/authz-stack.js';
import { freePort } from '../support/client-harness.js';
import { startInstances, type Instances } from '../support/instances.js';
import { startOAuthServer, type OAuthServer } from '../support/oauth-server.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CLIENT = 'https://client.example/oauth/metadata.json';
let redis: SharedRedis;
let idp: OAuthServer;
let instances: Instances;
let origin: string;

beforeAll(async () => {
  origin = `http://localhost:${await freePort()}`;
  [redis, idp] = await Promise.all([startSharedRedis(), startOAuthServer({ scopes: [], idJag: {} })]);
  instances = await startInstances(2, {
    ...redis.bridge.env, INSTANCE_APP: 'default', MCP_STATE_SECRET: 's'.repeat(32), PUBLIC_URL: origin,
    AUTH_SERVER_KEY: newSigningKey(), AUTH_SERVER_PROVIDER: 'oidc', AUTH_SERVER_OIDC_ISSUER: idp.issuer,
    AUTH_SERVER_CLIENT_ID: 'agent-mcp', AUTH_SERVER_CLIENT_SECRET: 'secret', AUTH_SERVER_ALLOW: 'alice@example.com', AUTH_SCOPES: 'agents:chat',
    AUTH_ENTERPRISE_IDPS: JSON.stringify([{ issuer: idp.issuer, clients: [CLIENT] }]),
  });
}, 60_000);
afterAll(async () => {
  await instances?.stop();
  await idp?.close();
  await redis?.stop();
});

const direct = (index: number) => new URL(instances.urls[index]!).origin;
const idJag = () => idp.signIdJag({ sub: 'alice', aud: origin, client_id: CLIENT, resource: `${origin}/mcp`, scope: 'agents:chat' });
async function redeem(index: number, assertion: string) {
  const response = await fetch(`${direct(index)}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER, assertion, client_id: CLIENT }),
  });
  return { status: response.status, body: await response.json() as Record<string, string> };
}

describe('an ID-JAG on two processes sharing a store', () => {
  test('each process says at start-up that it redeems the provider\'s ID-JAGs', () => {
    expect(instances.output()).toContain(`ID-JAGs of ${idp.issuer}`);
  });

  test('redeemed on one process, it is refused on the other; the token works on both', async () => {
    const assertion = await idJag();
    const first = await redeem(0, assertion);
    expect(first.status).toBe(200);
    expect(await redeem(1, assertion)).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'The assertion was already used.' } });
    for (const index of [0, 1]) {
      const listed = await fetch(`${direct(index)}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${first.body.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(listed.status).toBe(200);
    }
  });

  test('presented to both at once, it is redeemed once', async () => {
    const assertion = await idJag();
    const replies = await Promise.all([redeem(0, assertion), redeem(1, assertion), redeem(0, assertion), redeem(1, assertion)]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
  });

  test('its single use is kept in the store until the assertion expires, and no longer', async () => {
    const [key] = (await redis.direct.send([['KEYS', '*oauth-assertion-used*']]))[0] as string[];
    expect(key).toBeDefined();
    const [ttlMs] = await redis.direct.send([['PTTL', key!]]) as number[];
    // The assertions live 300 s; the record, until then plus the 30 s of skew they are accepted within.
    expect(ttlMs).toBeGreaterThan(0);
    expect(ttlMs).toBeLessThanOrEqual(330_000);
  });
});
