/**
 * A legacy (2025-03-26) batch cannot go around the rate limits or grow without bound: each message, notifications
 * and responses included, is charged, a batch the budget cannot cover is refused whole with 429, and a batch over MCP_MAX_BATCH is 400/-32600.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { agentDefinitions } from '../../lib/agent/index.js';
import { createApp } from '../../lib/app.js';
import { createBatchCheck } from '../../lib/http/batch.js';
import { createLimitsFromEnv } from '../../lib/limits/index.js';
import { classifyBody } from '../../lib/protocol/classify.js';
import { INVALID_REQUEST, RATE_LIMITED } from '../../lib/protocol/errors.js';
import { MemoryStore } from '../../lib/store/memory.js';
import { openSession, post } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';

const BATCH_VERSION = { 'mcp-protocol-version': '2025-03-26' };
let agentCalls = 0;

function startServer(env: Record<string, string>, store?: MemoryStore) {
  const app = createApp({
    store,
    definitions: [agentDefinitions({}, [{
      id: 'counter', name: 'Counter', description: 'Counts the calls that reach it.',
      async *reply() {
        agentCalls += 1;
        yield 'counted';
      },
    }])],
    origin: { local: true, allowedOrigins: new Set() },
    limits: createLimitsFromEnv(env, undefined),
  });
  return startTestServer(createMcpHandler(app));
}

const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { agent_id: 'counter', message: `turn ${id} ${crypto.randomUUID()}` } } });
const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

describe('each request of a batch counts against the rate limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ RATE_LIMIT_IP: '2/1m' });
  });
  afterAll(() => server.close());

  test('with RATE_LIMIT_IP=2/1m a batch of 10 tools/call is refused whole with 429 and reaches no agent', async () => {
    agentCalls = 0;
    const response = await post(server.mcpUrl, Array.from({ length: 10 }, (_, i) => call(i)), BATCH_VERSION);
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: RATE_LIMITED } });
    expect(agentCalls).toBe(0);
  });

  test('a batch the budget covers runs, and uses the budget up: the next request is refused', async () => {
    const fresh = await startServer({ RATE_LIMIT_IP: '2/1m' });
    try {
      agentCalls = 0;
      const response = await post(fresh.mcpUrl, [call(1), call(2)], BATCH_VERSION);
      expect(response.status).toBe(200);
      expect((await response.json()).map((r: { id: number }) => r.id).sort()).toEqual([1, 2]);
      expect(agentCalls).toBe(2);
      expect((await post(fresh.mcpUrl, ping(3), BATCH_VERSION)).status).toBe(429);
    } finally {
      await fresh.close();
    }
  });

  test('notifications count too: with RATE_LIMIT_IP=2/1m a batch of 10 notifications/cancelled is refused whole and files nothing', async () => {
    const store = new MemoryStore();
    const fresh = await startServer({ RATE_LIMIT_IP: '2/1m' }, store);
    try {
      const session = await openSession(fresh.mcpUrl, '2025-03-26');
      const writes = store.size;
      const cancels = Array.from({ length: 10 }, (_, i) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: i, reason: 'flood' } }));
      const response = await post(fresh.mcpUrl, cancels, session);
      expect(response.status).toBe(429);
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: RATE_LIMITED } });
      expect(store.size).toBe(writes);
    } finally {
      await fresh.close();
    }
  });

  test('a batch is charged to the principal limit too', async () => {
    const limits = createLimitsFromEnv({ RATE_LIMIT_PRINCIPAL: '3/1m' }, undefined)!;
    const check = createBatchCheck(32, limits);
    const request = new Request('http://localhost/mcp', { method: 'POST' });
    const alice = { subject: 'alice', scopes: [] };
    const batch = (n: number) => classifyBody(Array.from({ length: n }, (_, i) => ping(i)), new Headers(BATCH_VERSION));
    // The HTTP step charged the first request; the batch step charges the other two.
    expect(await limits.byPrincipal!(alice)).toBeUndefined();
    expect(await check(request, batch(3), alice)).toBeUndefined();
    expect(await limits.byPrincipal!({ subject: 'bob', scopes: [] })).toBeUndefined();
    expect((await check(request, batch(2), alice))?.status).toBe(429);
  });
});

describe('batch size is capped (MCP_MAX_BATCH, default 32)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({});
  });
  afterAll(() => server.close());

  test('a batch over the size cap gets 400 and -32600', async () => {
    agentCalls = 0;
    const response = await post(server.mcpUrl, Array.from({ length: 33 }, (_, i) => call(i)), BATCH_VERSION);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: 'Invalid Request: a batch holds at most 32 messages; this one has 33.' } });
    expect(agentCalls).toBe(0);
  });

  test('a batch at the cap is served', async () => {
    const response = await post(server.mcpUrl, Array.from({ length: 32 }, (_, i) => ping(i)), BATCH_VERSION);
    expect(response.status).toBe(200);
    expect(await response.json()).toHaveLength(32);
  });
});
