/**
 * A shared store that goes down mid-load and comes back (issue 11, item 13), or stalls (issue 26, item 4): a real
 * redis-server behind the Upstash REST bridge, reached through a proxy the test switches off and on, or stalls,
 * at the same address.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { agentDefinitions } from '../../lib/agent/index.js';
import { createApp } from '../../lib/app.js';
import { UpstashStore } from '../../lib/store/upstash.js';
import { openSession, post, readSse } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';
import { startSwitchProxy, type SwitchProxy } from '../support/switch-proxy.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

let redis: SharedRedis;
let proxy: SwitchProxy;
let upstream: Upstream;
let server: TestServer;
const prefix = `outage-${crypto.randomUUID()}:`;
/** STORE_TIMEOUT_MS of the server under test. */
const STORE_TIMEOUT_MS = 500;

beforeAll(async () => {
  [redis, upstream] = await Promise.all([startSharedRedis(), startUpstream()]);
  proxy = await startSwitchProxy(redis.bridge.url);
  const env = { AGENTS: JSON.stringify([{ id: 'echo', format: 'openai', url: `${upstream.url}/v1`, model: 'test-model' }]) };
  const app = createApp({
    definitions: [agentDefinitions(env)],
    store: new UpstashStore({ ...redis.config, url: proxy.url }, { prefix, timeoutMs: STORE_TIMEOUT_MS }),
    stateSecret: 'the deployment secret, 32 characters or more',
    origin: { local: true, allowedOrigins: new Set() },
  });
  server = await startTestServer(createMcpHandler(app));
}, 30_000);
afterAll(async () => {
  await server?.close();
  await proxy?.close();
  upstream?.stop();
  await redis?.stop();
});

const chat = (id: number, args: Record<string, unknown>, progressToken?: string) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: args, ...(progressToken ? { _meta: { progressToken } } : {}) } });

/** The keys of this suite's conversation queues left in Redis. */
const queueKeys = async () => (await redis.direct.send([['KEYS', `${prefix}queue*`]]))[0] as string[];

describe('the shared store down and back', () => {
  test('a chat call while the store is down is a clear isError, not an internal error, and service resumes by itself', async () => {
    const session = await openSession(server.mcpUrl);
    const first = await (await post(server.mcpUrl, chat(1, { message: 'before' }), session)).json();
    const { session_id } = first.result.structuredContent;

    proxy.setDown(true);
    const during = await post(server.mcpUrl, chat(2, { message: 'during', session_id }), session);
    expect(during.status).toBe(200);
    const { result } = await during.json();
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('shared store is unavailable');

    proxy.setDown(false);
    const after = await (await post(server.mcpUrl, chat(3, { message: 'after', session_id }), session)).json();
    expect(after.result.isError).toBeUndefined();
    expect(after.result.structuredContent.reply).toContain('(history 2)');
  });

  test('a message with no reply to form (a cancellation) gets 503 with Retry-After while the store is down', async () => {
    const session = await openSession(server.mcpUrl);
    proxy.setDown(true);
    try {
      const response = await post(server.mcpUrl, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } }, session);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await response.json()).toMatchObject({ error: { message: expect.stringContaining('shared store is unavailable') } });
    } finally {
      proxy.setDown(false);
    }
  });

  test('a turn whose release the store refused does not hold up the conversation: once the store is back the release is written, and the next turn goes at once', async () => {
    const session = await openSession(server.mcpUrl);
    const first = await (await post(server.mcpUrl, chat(1, { message: 'before' }), session)).json();
    const { session_id } = first.result.structuredContent;

    // The store goes down while the agent answers turn 2, so the turn cannot be released.
    const message = `fault:wait 300 ${crypto.randomUUID()}`;
    const during = post(server.mcpUrl, chat(2, { message, session_id }), session);
    await upstream.waitFor((log) => log.some((e) => e.kind === 'request' && e.body?.messages?.at(-1)?.content === message));
    proxy.setDown(true);
    const refused = await (await during).json();
    expect(refused.result.isError).toBe(true);
    expect(refused.result.content[0].text).toContain('shared store is unavailable');
    proxy.setDown(false);

    // Within a few background tries, not the turn's bound (AGENT_TIMEOUT_MS + 30 s) nor the old 30-minute idle.
    await expect.poll(queueKeys, { timeout: 8_000, interval: 200 }).toEqual([]);
    const after = await post(server.mcpUrl, chat(3, { message: 'after', session_id }, 'after'), session);
    const messages = await readSse(after).rest();
    const notes = messages.filter((m) => m.method === 'notifications/progress').map((m) => String(m.params.message));
    expect(notes.some((note) => note.startsWith('Waiting for'))).toBe(false);
    expect(messages.at(-1).result.structuredContent.reply).toContain('Echo: after (history 2)');
    expect(await queueKeys()).toEqual([]);
  });

  test('a stalled store (it accepts requests and never answers): a chat call is an isError and a cancellation a 503, each after STORE_TIMEOUT_MS', async () => {
    const session = await openSession(server.mcpUrl);
    const first = await (await post(server.mcpUrl, chat(1, { message: 'before the stall' }), session)).json();
    const { session_id } = first.result.structuredContent;
    proxy.setStalled(true);
    try {
      const during = await post(server.mcpUrl, chat(2, { message: 'during the stall', session_id }), session);
      expect(during.status).toBe(200);
      const { result } = await during.json();
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toContain('shared store is unavailable');

      const cancel = await post(server.mcpUrl, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } }, session);
      expect(cancel.status).toBe(503);
      expect(cancel.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      proxy.setStalled(false);
    }
    const after = await (await post(server.mcpUrl, chat(3, { message: 'after the stall', session_id }), session)).json();
    expect(after.result.isError).toBeUndefined();
    expect(after.result.structuredContent.reply).toContain('Echo: after the stall');
  });
});
