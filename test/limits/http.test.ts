/** The limit steps of the MCP endpoint over real loopback HTTP (memory limiter; the Upstash one is in upstash.test.ts). */

import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp, createDefaultApp, defaultDefinitions } from '../../lib/app.js';
import { createLimitsFromEnv } from '../../lib/limits/index.js';
import { RATE_LIMITED } from '../../lib/protocol/errors.js';
import { Caller } from '../../lib/server/caller.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { post } from '../support/rpc.js';

const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };

let server: TestServer;
beforeAll(async () => {
  const app = createApp({
    definitions: defaultDefinitions({}),
    origin: { local: true, allowedOrigins: new Set() },
    stateSecret: 'x'.repeat(32),
    limits: createLimitsFromEnv({ RATE_LIMIT_IP: '2/1m' }, undefined),
  });
  server = await startTestServer(createMcpHandler(app));
});
afterAll(() => server.close());
afterEach(() => vi.restoreAllMocks());

describe('the per-IP limit', () => {
  test('over the limit: 429 with Retry-After, RateLimit-Policy, RateLimit and a JSON-RPC error a model can read', async () => {
    expect((await post(server.mcpUrl, ping(1), LEGACY)).status).toBe(200);
    expect((await post(server.mcpUrl, ping(2), LEGACY)).status).toBe(200);
    const refused = await post(server.mcpUrl, ping(3), LEGACY);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit-policy')).toBe('"ip";q=2;w=60');
    expect(refused.headers.get('ratelimit')).toBe(`"ip";r=0;t=${retryAfter}`);
    expect(refused.headers.get('content-type')).toBe('application/json');
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: RATE_LIMITED,
        message: `Rate limit exceeded: at most 2 requests per IP address every minute. Retry after ${retryAfter} s.`,
        data: { scope: 'ip', limit: 2, windowSeconds: 60, retryAfterSeconds: retryAfter },
      },
    });
  });

  test('a browser client can read when to retry: CORS exposes Retry-After, RateLimit-Policy and RateLimit', async () => {
    const origin = { ...LEGACY, origin: 'http://localhost:6274' };
    let refused = await post(server.mcpUrl, ping(4), origin);
    for (let i = 5; refused.status !== 429 && i < 8; i++) refused = await post(server.mcpUrl, ping(i), origin);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    const exposed = refused.headers.get('access-control-expose-headers')!.split(', ');
    expect(exposed).toEqual(expect.arrayContaining(['retry-after', 'ratelimit-policy', 'ratelimit']));
  });

  test('it comes after the method check: a PUT is still 405, a preflight still 204', async () => {
    expect((await fetch(server.mcpUrl, { method: 'PUT' })).status).toBe(405);
    expect((await fetch(server.mcpUrl, { method: 'OPTIONS' })).status).toBe(204);
  });
});

describe('the per-principal limit', () => {
  test('counts each principal on its own and refuses with the principal scope', async () => {
    const limits = createLimitsFromEnv({ RATE_LIMIT_PRINCIPAL: '1/1h' }, undefined)!;
    const alice = { subject: 'alice', scopes: [] };
    expect(await limits.byPrincipal!(alice)).toBeUndefined();
    const refused = (await limits.byPrincipal!(alice))!;
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-policy')).toBe('"principal";q=1;w=3600');
    expect((await refused.json()).error.message).toMatch(/^Rate limit exceeded: at most 1 request per caller every hour\./);
    expect(await limits.byPrincipal!({ subject: 'bob', scopes: [] })).toBeUndefined();
  });
});

describe('a principal with a rate of its own (an API key\'s rate=, MCP_API_KEYS)', () => {
  const own = new Map([['key:ci', { limit: 1, windowMs: 3_600_000, text: '1/1h' }]]);
  const ci = { kind: 'api-key', subject: 'ci', scopes: [] };

  test('is counted by its own rate even with RATE_LIMIT_PRINCIPAL off, and refused with the key scope', async () => {
    const limits = createLimitsFromEnv({}, undefined, { ownRates: own })!;
    expect(await limits.byPrincipal!(ci)).toBeUndefined();
    const refused = (await limits.byPrincipal!(ci))!;
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-policy')).toBe('"key";q=1;w=3600');
    expect((await refused.json()).error.message).toMatch(/^Rate limit exceeded: at most 1 request for this API key every hour\./);
    // Everyone else is unlimited, as RATE_LIMIT_PRINCIPAL says.
    for (let i = 0; i < 3; i++) expect(await limits.byPrincipal!({ subject: 'alice', scopes: [] })).toBeUndefined();
  });

  test('its rate replaces RATE_LIMIT_PRINCIPAL, and a nested agent turn is charged to it, naming MCP_API_KEYS', async () => {
    const limits = createLimitsFromEnv({ RATE_LIMIT_PRINCIPAL: '100/1h' }, undefined, { ownRates: own })!;
    const charge = limits.chargeFor(new Caller(ci, undefined, '192.0.2.7'));
    expect(await charge()).toBeUndefined();
    expect(await charge()).toEqual({ variable: 'MCP_API_KEYS', reason: expect.stringMatching(/^the caller is over its rate limit \(MCP_API_KEYS\): at most 1 request for this API key every hour\./) });
    expect(await limits.byPrincipal!({ subject: 'alice', scopes: [] })).toBeUndefined();
  });
});

describe('work a request sets off beyond itself (a nested agent turn)', () => {
  test('is charged to the request\'s IP and principal; over either, the refusal names the variable and reads like the 429', async () => {
    const limits = createLimitsFromEnv({ RATE_LIMIT_IP: '3/1m', RATE_LIMIT_PRINCIPAL: '2/1h' }, undefined)!;
    const request = Object.assign(new Request('http://localhost/mcp', { method: 'POST' }), { ip: '192.0.2.7' });
    const alice = { subject: 'alice', scopes: [] };
    const charge = limits.chargeFor(new Caller(alice, undefined, '192.0.2.7'));
    expect(await charge()).toBeUndefined();
    expect(await charge()).toBeUndefined();
    expect(await charge()).toEqual({ variable: 'RATE_LIMIT_PRINCIPAL', reason: expect.stringMatching(/^the caller is over its rate limit \(RATE_LIMIT_PRINCIPAL\): at most 2 requests per caller every hour\. Retry after \d+ s\.$/) });
    // The IP's three are spent too: the request path refuses the next request from it.
    expect(await limits.chargeFor(new Caller(undefined, undefined, '192.0.2.7'))()).toEqual({ variable: 'RATE_LIMIT_IP', reason: expect.stringMatching(/^the caller is over its rate limit \(RATE_LIMIT_IP\): at most 3 requests per IP address every minute\./) });
    expect((await limits.byIp!(request))!.status).toBe(429);
  });
});

describe('start-up', () => {
  test('a bad RATE_LIMIT_IP stops the deployment\'s app from starting, naming the variable', () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    expect(() => createDefaultApp({ RATE_LIMIT_IP: '60 per minute' }))
      .toThrow(new TypeError('RATE_LIMIT_IP must look like 60/1m (requests per window; s, m, h or d) or off, got "60 per minute".'));
  });

  test('the deployment\'s app says what its store and limits are; memory says it is one process only', () => {
    const app = createDefaultApp({ RATE_LIMIT_IP: '60/1m' });
    expect(app.store.shared).toBe(false);
    expect(app.limits?.byIp).toBeTypeOf('function');
    const { summary, details } = app.startup!;
    expect(Object.fromEntries(summary).limits).toBe('rate limits ip 60/1m, principal off; 16 concurrent calls per caller');
    expect(Object.fromEntries(summary).store).toMatch(/^memory, this process only/);
    expect(details).toContain('rate limits: ip 60/1m, principal off (counted per instance in memory; on a Redis fault: fail open)');
    expect(details.find((line) => line.includes('store: memory'))).toMatch(/this process only/);
  });
});
