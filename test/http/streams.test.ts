import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp } from '../../lib/app.js';
import { DEFAULT_REQUEST_BOUNDS } from '../../lib/http/bounds.js';
import type { ToolDefinition } from '../../lib/server/registry.js';
import { MemoryStore } from '../../lib/store/memory.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { openSession, post, postModern, readSse } from '../support/rpc.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const call = (name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>, id: number | string = 1) => ({
  jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

describe('reply framing', () => {
  test('a call that sends nothing first is answered with one JSON object', async () => {
    const response = await post(server.mcpUrl, call('test_simple_text'), { 'mcp-protocol-version': '2025-11-25' });
    expect(response.headers.get('content-type')).toBe('application/json');
  });

  test('a call that reports progress streams SSE with X-Accel-Buffering: no, the reply last', async () => {
    const response = await post(server.mcpUrl, call('test_tool_with_progress', {}, { progressToken: 'tok' }), { 'mcp-protocol-version': '2025-06-18' });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const messages = await readSse(response).rest();
    const progress = messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params);
    expect(progress).toEqual([
      expect.objectContaining({ progressToken: 'tok', progress: 0, total: 100 }),
      expect.objectContaining({ progressToken: 'tok', progress: 50, total: 100 }),
      expect.objectContaining({ progressToken: 'tok', progress: 100, total: 100 }),
    ]);
    expect(messages.at(-1)).toMatchObject({ id: 1, result: { content: [{ type: 'text' }] } });
  });

  test('progress tokens work on the modern wire too, without event ids', async () => {
    const response = await postModern(server.mcpUrl, 2, 'tools/call', { name: 'test_tool_with_progress', arguments: {} }, { meta: { progressToken: 7 } });
    const stream = readSse(response);
    const first = await stream.next();
    expect(first?.id).toBeUndefined();
    expect(JSON.parse(first!.data)).toMatchObject({ method: 'notifications/progress', params: { progressToken: 7, progress: 0 } });
    const rest = await stream.rest();
    expect(rest.at(-1)).toMatchObject({ id: 2, result: { resultType: 'complete' } });
  });

  test('without a logLevel in _meta no log notification is sent on the modern wire', async () => {
    const quiet = await (await postModern(server.mcpUrl, 3, 'tools/call', { name: 'test_logging_tool' })).json();
    expect(quiet).toMatchObject({ id: 3, result: { resultType: 'complete' } });
    const loud = await postModern(server.mcpUrl, 4, 'tools/call', { name: 'test_logging_tool' }, { meta: { 'io.modelcontextprotocol/logLevel': 'debug' } });
    const messages = await readSse(loud).rest();
    expect(messages[0]).toMatchObject({ method: 'notifications/message', params: { level: 'info' } });
  });
});

describe('2025-11-25 SSE polling (SEP-1699)', () => {
  test('a stream opens with a priming event: an id, a retry and empty data', async () => {
    const response = await post(server.mcpUrl, call('test_tool_with_progress', {}, { progressToken: 'p' }), await openSession(server.mcpUrl));
    const stream = readSse(response);
    const priming = await stream.next();
    expect(priming).toMatchObject({ id: expect.stringMatching(/_0$/), retry: expect.any(Number), data: '' });
    const next = await stream.next();
    expect(next?.id).toMatch(/_1$/);
    await stream.rest();
  });

  test('a stream the server closes early is resumed with GET and Last-Event-ID, and ends with the reply', async () => {
    const session = await openSession(server.mcpUrl);
    const response = await post(server.mcpUrl, call('test_reconnection', {}, undefined, 'r1'), session);
    const first = readSse(response);
    const priming = await first.next();
    expect(await first.next()).toBeUndefined();

    const resumed = await fetch(server.mcpUrl, { headers: { ...session, accept: 'text/event-stream', 'last-event-id': priming!.id! } });
    expect(resumed.status).toBe(200);
    const events = [];
    const stream = readSse(resumed);
    for (let e = await stream.next(); e; e = await stream.next()) events.push(e);
    expect(events).toHaveLength(1);
    expect(events[0]!.id).toMatch(/_1$/);
    expect(JSON.parse(events[0]!.data)).toMatchObject({ id: 'r1', result: { content: [{ text: expect.stringContaining('Reconnection') }] } });
  });

  test('a client without a session, which could not resume, is never cut off: its reply comes whole', async () => {
    const response = await post(server.mcpUrl, call('test_reconnection', {}, undefined, 'r2'), { 'mcp-protocol-version': '2025-11-25' });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ id: 'r2', result: { content: [{ text: expect.stringContaining('Reconnection') }] } });
  });

  test('resuming an unknown stream is 404 and a malformed id is 400', async () => {
    const unknown = await fetch(server.mcpUrl, { headers: { accept: 'text/event-stream', 'last-event-id': `${crypto.randomUUID()}_0` } });
    expect(unknown.status).toBe(404);
    const malformed = await fetch(server.mcpUrl, { headers: { accept: 'text/event-stream', 'last-event-id': 'nope' } });
    expect(malformed.status).toBe(400);
  });
});

describe('server-to-client requests on the stateless legacy wire', () => {
  test('an elicitation goes out on the call stream and the answer POSTed separately completes the call', async () => {
    const session = await openSession(server.mcpUrl, '2025-06-18');
    const response = await post(server.mcpUrl, call('test_elicitation', { message: 'Who are you?' }, undefined, 'e1'), session);
    const stream = readSse(response);
    const request = JSON.parse((await stream.next())!.data);
    expect(request).toMatchObject({ method: 'elicitation/create', params: { message: 'Who are you?' } });
    expect(request.id).toMatch(/^mcp-srv-[\w-]{22}\.[\w-]{22}$/);

    const answer = await post(server.mcpUrl, {
      jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } },
    }, session);
    expect(answer.status).toBe(202);
    const [reply] = await stream.rest();
    expect(reply).toMatchObject({ id: 'e1', result: { content: [{ text: expect.stringContaining('ada@example.com') }] } });
  });

  test('an error answer from the client fails the call as an internal error carrying the client\'s answer', async () => {
    const session = await openSession(server.mcpUrl, '2025-06-18');
    const response = await post(server.mcpUrl, call('test_sampling', { prompt: 'hi' }, undefined, 's1'), session);
    const stream = readSse(response);
    const request = JSON.parse((await stream.next())!.data);
    expect(request.method).toBe('sampling/createMessage');
    await post(server.mcpUrl, { jsonrpc: '2.0', id: request.id, error: { code: -1, message: 'User rejected sampling' } }, session);
    const [reply] = await stream.rest();
    expect(reply).toMatchObject({
      id: 's1',
      error: { code: -32603, message: expect.stringContaining('User rejected sampling'), data: { clientError: { code: -1 } } },
    });
  });

  test('a client without a session cannot be asked: the call fails saying the session id is needed', async () => {
    const response = await post(server.mcpUrl, call('test_elicitation', { message: 'Who are you?' }, undefined, 'e2'), { 'mcp-protocol-version': '2025-06-18' });
    const reply = await response.json();
    expect(reply).toMatchObject({ id: 'e2', error: { code: -32602, message: expect.stringContaining('Mcp-Session-Id') } });
  });
});

describe('resumed streams are bounded (2025-11-25 transports §Resumability: each message on one stream)', () => {
  let held: TestServer;
  /** Calls of `held_open` wait until the test lets them finish. */
  let release!: () => void;
  let released = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    const tool: ToolDefinition = {
      name: 'held_open',
      description: 'Closes its stream at once, then answers when the test releases it.',
      async run(_args, ctx) {
        ctx.outbound?.closeStream?.();
        await released;
        return { content: [{ type: 'text', text: 'released' }] };
      },
    };
    // A short watch tick: a resumed stream sees a write that lands between its read and its wait at the next tick.
    const app = createApp({
      definitions: [{ tools: [tool] }], origin: { local: true, allowedOrigins: new Set() }, stateSecret: 'x'.repeat(32), store: new MemoryStore({}, 100),
    });
    held = await startTestServer(createMcpHandler(app, { ...DEFAULT_REQUEST_BOUNDS, maxResumedStreams: 2 }));
  });
  afterAll(async () => {
    release();
    await held?.close();
  });

  /** Starts a held call and returns the Last-Event-ID of its priming event, once the server closed its stream. */
  async function heldCall(session: Record<string, string>, id: string): Promise<string> {
    const first = readSse(await post(held.mcpUrl, call('held_open', {}, undefined, id), session));
    const priming = await first.next();
    expect(await first.next()).toBeUndefined();
    return priming!.id!;
  }

  const resume = (session: Record<string, string>, lastEventId: string) =>
    fetch(held.mcpUrl, { headers: { ...session, accept: 'text/event-stream', 'last-event-id': lastEventId } });

  test('a second resumption of a stream ends the first; the reply goes out once, on the second', async () => {
    const session = await openSession(held.mcpUrl);
    const lastEventId = await heldCall(session, 'h1');
    const older = readSse(await resume(session, lastEventId));
    const newer = await resume(session, lastEventId);
    expect(newer.status).toBe(200);
    expect(await older.rest()).toEqual([]);
    release();
    expect(await readSse(newer).rest()).toEqual([expect.objectContaining({ id: 'h1', result: expect.objectContaining({ content: [{ type: 'text', text: 'released' }] }) })]);
    released = new Promise<void>((resolve) => (release = resolve));
  });

  test('past MCP_MAX_RESUMED_STREAMS a caller is refused with 429 and a fixed sentence; another caller is not affected', async () => {
    const session = await openSession(held.mcpUrl);
    const ids = [await heldCall(session, 'a'), await heldCall(session, 'b'), await heldCall(session, 'c')];
    const open = [await resume(session, ids[0]!), await resume(session, ids[1]!)];
    expect(open.map((r) => r.status)).toEqual([200, 200]);
    const third = await resume(session, ids[2]!);
    expect(third.status).toBe(429);
    expect(await third.json()).toMatchObject({ error: { message: 'Too Many Requests: this client already follows the most resumed streams allowed here (MCP_MAX_RESUMED_STREAMS); close one first.' } });

    const other = await openSession(held.mcpUrl);
    const theirs = await resume(other, await heldCall(other, 'd'));
    expect(theirs.status).toBe(200);
    // A stream that ends (its call answered) frees its place.
    release();
    for (const response of [...open, theirs]) expect(await readSse(response).rest()).toHaveLength(1);
    const retried = await resume(session, ids[2]!);
    expect(retried.status).toBe(200);
    expect(await readSse(retried).rest()).toEqual([expect.objectContaining({ id: 'c' })]);
    released = new Promise<void>((resolve) => (release = resolve));
  });
});
