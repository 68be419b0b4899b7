/**
 * Several agent-mcp server processes on one real redis-server (behind the Upstash REST bridge): what one
 * process starts, another can continue.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startInstances, type Instances } from '../support/instances.js';
import { openSession, post, readSse } from '../support/rpc.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

const LEGACY = { 'mcp-protocol-version': '2025-11-25' };

const call = (id: string, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args },
});

let redis: SharedRedis;
let upstream: Upstream;
let instances: Instances;
let deployed: Instances;
beforeAll(async () => {
  [redis, upstream] = await Promise.all([startSharedRedis(), startUpstream()]);
  [instances, deployed] = await Promise.all([
    // A one-second watch tick: what crosses processes is seen within it (deployed default: 4.5 s).
    startInstances(2, { ...redis.bridge.env, STORE_WATCH_MS: '1000', INSTANCE_APP: 'conformance' }),
    startInstances(2, { ...redis.bridge.env, STORE_WATCH_MS: '1000', INSTANCE_APP: 'default', AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'test-model' }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([instances?.stop(), deployed?.stop()]);
  upstream?.stop();
  await redis?.stop();
});

describe('legacy server-to-client requests across processes', () => {
  test('an elicitation whose answer is POSTed to another process completes', async () => {
    const [first, second] = instances.urls as [string, string];
    const session = await openSession(first);
    const response = await post(first, call('e1', 'test_elicitation', { message: 'Who are you?' }), session);
    const stream = readSse(response);
    let request: any;
    for (let event = await stream.next(); event; event = await stream.next()) {
      if (event.data && (request = JSON.parse(event.data)).method === 'elicitation/create') break;
    }
    expect(request).toMatchObject({ method: 'elicitation/create', params: { message: 'Who are you?' } });

    const answer = await post(second, {
      jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } },
    }, session);
    expect(answer.status).toBe(202);
    const [reply] = await stream.rest();
    expect(reply).toMatchObject({ id: 'e1', result: { content: [{ text: expect.stringContaining('ada@example.com') }] } });
  });
});

describe('SSE resumption across processes', () => {
  test('a stream one process closed early is resumed from another with Last-Event-ID', async () => {
    const [first, second] = instances.urls as [string, string];
    const session = await openSession(first);
    const response = await post(first, call('r1', 'test_reconnection'), session);
    const priming = await readSse(response).next();
    const resumed = await fetch(second, { headers: { ...session, accept: 'text/event-stream', 'last-event-id': priming!.id! } });
    expect(resumed.status).toBe(200);
    const messages = await readSse(resumed).rest();
    expect(messages.at(-1)).toMatchObject({ id: 'r1', result: { content: [{ text: expect.stringContaining('Reconnection') }] } });
  });
});

describe('conversations across processes', () => {
  test('a conversation started on one process continues on another with its history', async () => {
    const [first, second] = deployed.urls as [string, string];
    const opening = await (await post(first, call('c1', 'chat_with_agent', { message: 'Remember the word kumquat.' }), LEGACY)).json();
    const { session_id: sessionId } = opening.result.structuredContent;
    expect(opening.result.structuredContent.reply).toContain('(history 0)');

    const next = await (await post(second, call('c2', 'chat_with_agent', { message: 'Which word?', session_id: sessionId }), LEGACY)).json();
    expect(next.result.structuredContent).toMatchObject({ session_id: sessionId, reply: expect.stringContaining('(history 2)') });
    const [secondTurn] = await upstream.requestsFor('Which word?');
    expect(secondTurn!.body!.messages).toEqual([
      { role: 'user', content: 'Remember the word kumquat.' },
      { role: 'assistant', content: expect.stringContaining('kumquat') },
      { role: 'user', content: 'Which word?' },
    ]);
  });
});

describe('retries across processes', () => {
  test('a retry POSTed to another process while the call runs joins it: one upstream request, the same reply', async () => {
    const [first, second] = deployed.urls as [string, string];
    const session = await openSession(first);
    const message = `fault:wait 1500 ${crypto.randomUUID()}`;
    const request = call('j1', 'chat_with_agent', { message });
    const original = post(first, request, session).then((r) => r.json());
    await upstream.waitFor((log) => log.some((e) => e.kind === 'request' && e.body?.messages?.at(-1)?.content === message));
    const retry = await (await post(second, request, session)).json();
    expect(retry.result).toEqual((await original).result);
    expect(retry.result.structuredContent.reply).toContain(message);
    expect(await upstream.requestsFor(message)).toHaveLength(1);
  });
});

describe('cancellation across processes', () => {
  test('notifications/cancelled POSTed to another process aborts the running call and its upstream request', async () => {
    const [first, second] = deployed.urls as [string, string];
    const session = await openSession(first);
    const message = `fault:hang ${crypto.randomUUID()}`;
    const lastUser = (entry: { body?: { messages?: Array<{ role: string; content: string }> } }) => entry.body?.messages?.at(-1)?.content;
    const response = await post(first, {
      jsonrpc: '2.0', id: 'h1', method: 'tools/call',
      params: { name: 'chat_with_agent', arguments: { message }, _meta: { progressToken: 'p1' } },
    }, session);
    const stream = readSse(response);
    await upstream.waitFor((log) => log.some((e) => e.kind === 'request' && lastUser(e) === message));

    const cancel = await post(second, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'h1', reason: 'changed my mind' } }, session);
    expect(cancel.status).toBe(202);
    await upstream.waitFor((log) => log.some((e) => e.kind === 'closed' && lastUser(e) === message));
    await stream.cancel();
  });
});

describe('isolation across processes', () => {
  test('a stranger\'s cancellation POSTed to another process does not cancel my call with the same id', async () => {
    const [first, second] = deployed.urls as [string, string];
    const [mine, stranger] = await Promise.all([openSession(first), openSession(second)]);
    const message = `fault:slow not yours ${crypto.randomUUID()}`;
    const reply = post(first, { jsonrpc: '2.0', id: 'h2', method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message } } }, mine);
    await upstream.waitFor((log) => log.some((e) => e.kind === 'request' && e.body?.messages?.at(-1)?.content === message));
    const cancel = await post(second, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'h2' } }, stranger);
    expect(cancel.status).toBe(202);
    const { result } = await (await reply).json();
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent.reply).toContain('not yours');
  });
});

describe('start-up', () => {
  test('each deployed process says it uses the shared Upstash store', () => {
    const lines = deployed.output().split('\n').filter((line) => line.includes('store:'));
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toContain(`store: Upstash Redis at ${new URL(redis.bridge.url).host} (from UPSTASH_REDIS_REST_URL), shared by every instance`);
  });
});
