/**
 * Concurrent calls per caller (MCP_MAX_CONCURRENT_CALLS): a caller runs at most its share of calls at once; the
 * next is refused at once (429 + Retry-After, or an error in a batch's reply) while another caller is unaffected.
 * Callers are the verified principal, else the address (on Vercel, the edge's x-real-ip), never the session.
 * Real HTTP on loopback, real bearer tokens from a loopback issuer.
 */

import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import * as z from 'zod';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp, createDefaultApp } from '../../lib/app.js';
import { createBearerAuth, readAuthConfig, readSignIn } from '../../lib/auth/index.js';
import { createCallSlots, DEFAULT_MAX_CONCURRENT_CALLS, readMaxConcurrentCalls } from '../../lib/limits/concurrency.js';
import { RATE_LIMITED } from '../../lib/protocol/errors.js';
import type { ToolDefinition } from '../../lib/server/registry.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { openSession, post, postModern } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';

const SHARE = 3;
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** `hold({ key })` runs until the test releases `key`; `started(key)` resolves once it runs. */
function holdTool() {
  const calls = new Map<string, { started: ReturnType<typeof deferred>; released: ReturnType<typeof deferred> }>();
  const call = (key: string) => {
    if (!calls.has(key)) calls.set(key, { started: deferred(), released: deferred() });
    return calls.get(key)!;
  };
  const tool: ToolDefinition<any> = {
    name: 'hold',
    description: 'Runs until released.',
    input: z.object({ key: z.string() }),
    async run({ key }: { key: string }) {
      call(key).started.resolve();
      await call(key).released.promise;
      return { content: [{ type: 'text', text: `released ${key}` }] };
    },
  };
  return { tool, started: (key: string) => call(key).started.promise, release: (key: string) => call(key).released.resolve() };
}

const hold = (id: number | string, key: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'hold', arguments: { key } } });
const quick = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'quick', arguments: {} } });
const QUICK: ToolDefinition = { name: 'quick', description: 'Answers at once.', run: () => ({ content: [{ type: 'text', text: 'done' }] }) };

const refusal = {
  code: RATE_LIMITED,
  message: `Too many concurrent calls: this caller already runs ${SHARE} (MCP_MAX_CONCURRENT_CALLS); retry when one has finished.`,
  data: { limit: SHARE, retryAfterSeconds: 1 },
};

describe('callers with a token', () => {
  let issuer: TestIssuer;
  let server: TestServer;
  const probe = holdTool();

  beforeAll(async () => {
    issuer = await startIssuer();
    const env = { AUTH_ISSUER: issuer.issuer, AUTH_SCOPES: 'mcp' };
    const config = readAuthConfig(env)!;
    const app = createApp({
      definitions: [{ tools: [probe.tool, QUICK] }],
      stateSecret: 'c'.repeat(32),
      origin: { local: true, allowedOrigins: new Set() },
      auth: createBearerAuth(readSignIn(env), env),
      defaultScopes: config.scopes,
      calls: createCallSlots(SHARE),
    });
    server = await startTestServer(createMcpHandler(app));
  });
  afterAll(async () => {
    await server.close();
    await issuer.close();
  });

  const now = () => Math.floor(Date.now() / 1000);
  const as = async (sub: string) => ({
    authorization: `Bearer ${await issuer.mint({ iss: issuer.issuer, aud: server.mcpUrl, sub, scope: 'mcp', iat: now(), exp: now() + 300 } satisfies jose.JWTPayload)}`,
  });

  test(`a caller's call past its ${SHARE} running ones is refused with 429 and Retry-After; another caller's runs; a finished call frees its slot`, async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const alice = { ...LEGACY, ...(await as('alice')) };
    const bob = { ...LEGACY, ...(await as('bob')) };
    const running = [1, 2, 3].map((i) => post(server.mcpUrl, hold(i, `alice-${i}`), alice));
    await Promise.all([1, 2, 3].map((i) => probe.started(`alice-${i}`)));

    const refused = await post(server.mcpUrl, hold(4, 'alice-4'), alice);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({ jsonrpc: '2.0', id: 4, error: refusal });
    expect(warn).toHaveBeenCalledWith(`[agent-mcp] refused 1 call(s) over MCP_MAX_CONCURRENT_CALLS=${SHARE} running per caller`);

    // Lists are not calls: they answer while the share is taken.
    expect((await post(server.mcpUrl, { jsonrpc: '2.0', id: 5, method: 'tools/list' }, alice)).status).toBe(200);
    // Another caller is unaffected.
    const bobs = await post(server.mcpUrl, quick(6), bob);
    expect(await bobs.json()).toMatchObject({ id: 6, result: { content: [{ text: 'done' }] } });

    probe.release('alice-1');
    expect(await (await running[0]!).json()).toMatchObject({ id: 1, result: { content: [{ text: 'released alice-1' }] } });
    const again = await post(server.mcpUrl, quick(7), alice);
    expect(again.status).toBe(200);
    probe.release('alice-2');
    probe.release('alice-3');
    await Promise.all(running);
    warn.mockRestore();
  });

  test('on the 2026-07-28 wire the call past the share is refused the same way', async () => {
    const carol = await as('carol');
    const running = [1, 2, 3].map((i) => postModern(server.mcpUrl, i, 'tools/call', { name: 'hold', arguments: { key: `carol-${i}` } }, { headers: carol }));
    await Promise.all([1, 2, 3].map((i) => probe.started(`carol-${i}`)));
    const refused = await postModern(server.mcpUrl, 4, 'tools/call', { name: 'quick', arguments: {} }, { headers: carol });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await refused.json()).error).toEqual(refusal);
    for (const i of [1, 2, 3]) probe.release(`carol-${i}`);
    await Promise.all(running);
  });
});

describe('callers without a token', () => {
  let server: TestServer;
  const probe = holdTool();

  beforeAll(async () => {
    const app = createApp({
      definitions: [{ tools: [probe.tool, QUICK] }],
      stateSecret: 'd'.repeat(32),
      origin: { local: true, allowedOrigins: new Set() },
      // As on Vercel, where the edge sets x-real-ip: each test address is a caller of its own.
      calls: createCallSlots(SHARE, { trustForwarded: true }),
    });
    server = await startTestServer(createMcpHandler(app));
  });
  afterAll(() => server.close());

  test('are told apart by address, not by session: a fresh session does not get a fresh share', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const from = (ip: string) => ({ ...LEGACY, 'x-real-ip': ip });
    const running = [1, 2, 3].map((i) => post(server.mcpUrl, hold(i, `a-${i}`), from('203.0.113.1')));
    await Promise.all([1, 2, 3].map((i) => probe.started(`a-${i}`)));

    const freshSession = await openSession(server.mcpUrl, '2025-11-25', { 'x-real-ip': '203.0.113.1' });
    expect((await post(server.mcpUrl, quick(4), freshSession)).status).toBe(429);
    expect((await post(server.mcpUrl, quick(5), from('203.0.113.2'))).status).toBe(200);

    for (const i of [1, 2, 3]) probe.release(`a-${i}`);
    await Promise.all(running);
    warn.mockRestore();
  });

  test('each call of a batch takes a slot: the calls past the share get the error in the batch\'s reply, the rest run', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const batch = [1, 2, 3, 4, 5].map(quick);
    const response = await post(server.mcpUrl, batch, { 'mcp-protocol-version': '2025-03-26', 'x-real-ip': '203.0.113.3' });
    expect(response.status).toBe(200);
    const replies = await response.json() as Array<{ id: number; result?: unknown; error?: unknown }>;
    expect(replies.filter((r) => r.result)).toHaveLength(SHARE);
    expect(replies.filter((r) => r.error)).toEqual([{ jsonrpc: '2.0', id: 4, error: refusal }, { jsonrpc: '2.0', id: 5, error: refusal }]);
    // The batch's calls are over, so their slots are free again.
    expect((await post(server.mcpUrl, quick(6), { ...LEGACY, 'x-real-ip': '203.0.113.3' })).status).toBe(200);
    warn.mockRestore();
  });
});

describe('MCP_MAX_CONCURRENT_CALLS', () => {
  test(`defaults to ${DEFAULT_MAX_CONCURRENT_CALLS}; a value that is not a positive integer stops start-up naming it`, () => {
    expect(readMaxConcurrentCalls({})).toBe(16);
    expect(readMaxConcurrentCalls({ MCP_MAX_CONCURRENT_CALLS: '4' })).toBe(4);
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    expect(() => createDefaultApp({ MCP_MAX_CONCURRENT_CALLS: '0' })).toThrow(new TypeError('MCP_MAX_CONCURRENT_CALLS must be a positive integer, got "0".'));
    expect(createDefaultApp({ MCP_MAX_CONCURRENT_CALLS: '4' }).calls?.max).toBe(4);
    vi.restoreAllMocks();
  });
});

describe('a custom app that brings no call slots', () => {
  let server: TestServer;
  const probe = holdTool();

  beforeAll(async () => {
    // On Vercel (VERCEL=1) the handler takes the environment's slots, as the deployment's app does.
    vi.stubEnv('VERCEL', '1');
    const handler = createMcpHandler(createApp({
      definitions: [{ tools: [probe.tool, QUICK] }],
      stateSecret: 'e'.repeat(32),
      origin: { local: true, allowedOrigins: new Set() },
    }));
    vi.unstubAllEnvs();
    server = await startTestServer(handler);
  });
  afterAll(() => server.close());

  test('on Vercel keys each caller by the address the edge forwards, not by the proxy\'s: one caller\'s full share leaves another\'s', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const from = (ip: string) => ({ ...LEGACY, 'x-real-ip': ip });
    const share = DEFAULT_MAX_CONCURRENT_CALLS;
    const keys = Array.from({ length: share }, (_, i) => `v-${i}`);
    const running = keys.map((key, i) => post(server.mcpUrl, hold(i, key), from('203.0.113.7')));
    await Promise.all(keys.map((key) => probe.started(key)));

    expect((await post(server.mcpUrl, quick(100), from('203.0.113.7'))).status).toBe(429);
    const other = await post(server.mcpUrl, quick(101), from('203.0.113.8'));
    expect(other.status).toBe(200);
    expect(await other.json()).toMatchObject({ id: 101, result: { content: [{ text: 'done' }] } });

    for (const key of keys) probe.release(key);
    await Promise.all(running);
    warn.mockRestore();
  });
});
