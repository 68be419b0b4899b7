/**
 * Calls in flight on one instance (MCP_MAX_CALLS_PER_INSTANCE): all callers together run at most that many calls;
 * the call past it is refused before it runs with 503, Retry-After and a JSON-RPC error naming the variable, the
 * operator gets a counted warning and the usage counters an `instance-full` refusal, while the calls running go on to
 * their end. A call gives its room back when it ends, and when its client goes away mid-stream. Each caller's share
 * (MCP_MAX_CONCURRENT_CALLS) still holds: one caller cannot fill the instance. The default is sized from the
 * process's open-file limit and heap. Real HTTP on loopback: the deployment's app streaming `chat_with_agent` from a
 * real upstream process, each caller a loopback address of its own (127.0.0.x).
 */

import { request, type IncomingMessage } from 'node:http';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp, type App } from '../../lib/app.js';
import {
  ASSUMED_OPEN_FILES, defaultMaxCallsPerInstance, HEAP_PER_CALL, readInstanceResources, readMaxCallsPerInstance,
} from '../../lib/limits/instance.js';
import { INTERNAL_ERROR } from '../../lib/protocol/errors.js';
import { TASKS_EXTENSION } from '../../lib/protocol/tasks.js';
import { createCallSlots } from '../../lib/limits/concurrency.js';
import { readUsage } from '../../lib/usage/read.js';
import { postFrom } from '../support/from-address.js';
import { postModern } from '../support/rpc.js';
import { POST_HEADERS, startTestServer, type TestServer } from '../support/server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

const IN_FLIGHT = 3;
const SHARE = 2;
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };

let upstream: Upstream;
let app: App;
let server: TestServer;
beforeAll(async () => {
  upstream = await startUpstream();
  app = createDefaultApp({
    MCP_LOG: 'off',
    MCP_MAX_CALLS_PER_INSTANCE: String(IN_FLIGHT),
    MCP_MAX_CONCURRENT_CALLS: String(SHARE),
    AGENT_REPLY_DEADLINE_MS: 'off',
    AGENTS: JSON.stringify([{ id: 'echo', format: 'openai', url: `${upstream.url}/v1`, model: 'test-model' }]),
  });
  server = await startTestServer(createMcpHandler(app));
}, 30_000);
afterAll(async () => {
  await server?.close();
  upstream?.stop();
});

let id = 0;
/** A message the upstream echoes in 8-character pieces 50 ms apart: about 3 s of streaming. */
const slow = () => `fault:pace 50 ${crypto.randomUUID()} ${'tell me more '.repeat(30)}`;
/** A chat call; with a progress token its reply streams (SSE). */
const chat = (message: string, progress = false) => ({
  jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message }, ...(progress ? { _meta: { progressToken: id } } : {}) },
});

interface Streamed {
  status: number;
  /** Resolves once a progress notification has come: the call runs and streams. */
  streaming: Promise<void>;
  /** The whole body, once it ends. */
  body: Promise<string>;
  /** Closes the connection, as a client that goes away mid-stream. */
  drop(): void;
}

/** A streamed call from `address`, read as it arrives (postFrom waits for the whole reply). */
function streamFrom(address: string, message: string): Promise<Streamed> {
  const target = new URL(server.mcpUrl);
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1', port: target.port, path: target.pathname, method: 'POST', localAddress: address, headers: { ...POST_HEADERS, ...LEGACY },
    }, (res: IncomingMessage) => {
      let text = '';
      let streamed!: () => void;
      const streaming = new Promise<void>((r) => (streamed = r));
      const body = new Promise<string>((done, failed) => {
        res.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('notifications/progress')) streamed();
        }).on('end', () => done(text)).on('error', failed);
      });
      resolve({ status: res.statusCode!, streaming, body, drop: () => req.destroy() });
    });
    req.on('error', reject);
    req.end(JSON.stringify(chat(message, true)));
  });
}

/** The reply at the end of a stream: its last `data:` line. */
const replyOf = (body: string) => JSON.parse(body.trim().split('\n').filter((l) => l.startsWith('data: ')).at(-1)!.slice(6));

const busy = {
  code: INTERNAL_ERROR,
  message: `Server busy: this instance already runs ${IN_FLIGHT} calls (MCP_MAX_CALLS_PER_INSTANCE); retry shortly.`,
  data: { limit: IN_FLIGHT, retryAfterSeconds: 1 },
};

describe(`an instance running ${IN_FLIGHT} streamed calls of ${IN_FLIGHT} callers`, () => {
  test('refuses the next caller\'s call with 503, Retry-After and the error naming the bound; the running calls end whole; an ended call frees its room', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const messages = [slow(), slow(), slow()];
    const running = await Promise.all(messages.map((m, i) => streamFrom(`127.0.0.${2 + i}`, m)));
    await Promise.all(running.map((r) => r.streaming));

    const refused = await postFrom('127.0.0.5', server.mcpUrl, chat('hello'), LEGACY);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json).toEqual({ jsonrpc: '2.0', id, error: busy });
    expect(warn).toHaveBeenCalledWith(`[agent-mcp] refused 1 call(s) over MCP_MAX_CALLS_PER_INSTANCE=${IN_FLIGHT} running on this instance, all callers together`);

    // In a batch, each call past the bound gets the error in the batch's reply.
    const batch = await postFrom('127.0.0.6', server.mcpUrl, [chat('a'), chat('b')], { 'mcp-protocol-version': '2025-03-26' });
    expect(batch.status).toBe(200);
    expect(batch.json).toEqual([{ jsonrpc: '2.0', id: id - 1, error: busy }, { jsonrpc: '2.0', id, error: busy }]);
    // Lists are not calls: they answer while the instance is full.
    expect((await postFrom('127.0.0.5', server.mcpUrl, { jsonrpc: '2.0', id: ++id, method: 'tools/list' }, LEGACY)).status).toBe(200);

    // The running calls were not touched: each streams its whole reply.
    const bodies = await Promise.all(running.map((r) => r.body));
    bodies.forEach((body, i) => expect(replyOf(body).result.content[0].text).toContain(messages[i]));

    // Their room is free again: the refused caller's call now runs.
    const again = await postFrom('127.0.0.5', server.mcpUrl, chat('hello again'), LEGACY);
    expect(again.status).toBe(200);
    expect(again.json.result.content[0].text).toContain('hello again');

    // The counters are written beside the reply.
    await vi.waitFor(async () => expect((await readUsage(app.store, 'hour')).refusals).toEqual({ 'instance-full': 3 }));
    warn.mockRestore();
  }, 30_000);

  test('a client that goes away mid-stream gives its room back: the next call runs while the other two stream on', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const messages = [slow(), slow(), slow()];
    const running = await Promise.all(messages.map((m, i) => streamFrom(`127.0.0.${7 + i}`, m)));
    await Promise.all(running.map((r) => r.streaming));
    expect((await postFrom('127.0.0.10', server.mcpUrl, chat('full'), LEGACY)).status).toBe(503);

    running[0]!.body.catch(() => undefined);
    running[0]!.drop();
    // The call ends with its client: its upstream read is abandoned, and then its room is free.
    await upstream.waitFor((log) => log.some((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === messages[0]));
    let next = await postFrom('127.0.0.10', server.mcpUrl, chat('room again'), LEGACY);
    for (let i = 0; next.status === 503 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 20));
      next = await postFrom('127.0.0.10', server.mcpUrl, chat('room again'), LEGACY);
    }
    expect(next.status).toBe(200);
    expect(next.json.result.content[0].text).toContain('room again');

    const rest = await Promise.all(running.slice(1).map((r) => r.body));
    rest.forEach((body, i) => expect(replyOf(body).result.content[0].text).toContain(messages[i + 1]));
    warn.mockRestore();
  }, 30_000);

  test(`one caller cannot fill the instance: past its share of ${SHARE} it is refused with 429, and the room stays for others`, async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const mine = await Promise.all([slow(), slow()].map((m) => streamFrom('127.0.0.11', m)));
    await Promise.all(mine.map((r) => r.streaming));
    const third = await postFrom('127.0.0.11', server.mcpUrl, chat('a third'), LEGACY);
    expect(third.status).toBe(429);
    expect(third.json.error.message).toContain('MCP_MAX_CONCURRENT_CALLS');
    // The instance's last room went to nobody: another caller's call runs.
    const other = await postFrom('127.0.0.12', server.mcpUrl, chat('another caller'), LEGACY);
    expect(other.status).toBe(200);
    await Promise.all(mine.map((r) => r.body));
    warn.mockRestore();
  }, 30_000);
});

describe('MCP_MAX_CALLS_PER_INSTANCE', () => {
  test('a value that is not a positive integer stops start-up naming it', () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    for (const bad of ['0', '-1', '2.5', 'many']) {
      expect(() => createDefaultApp({ MCP_MAX_CALLS_PER_INSTANCE: bad })).toThrow(new TypeError(`MCP_MAX_CALLS_PER_INSTANCE must be a positive integer, got "${bad}".`));
    }
    expect(createDefaultApp({ MCP_MAX_CALLS_PER_INSTANCE: '5000' }).calls?.perInstance).toBe(5000);
    vi.restoreAllMocks();
  });

  test('defaults to what the process has: two descriptors a call past a reserve, or the heap, whichever is fewer', () => {
    const gib = 1024 ** 3;
    // A Vercel instance: about 1,024 descriptors decide.
    expect(defaultMaxCallsPerInstance({ openFiles: 1024, heapLimitBytes: 2 * gib })).toBe(480);
    // Many descriptors: the heap decides.
    expect(defaultMaxCallsPerInstance({ openFiles: 1_048_576, heapLimitBytes: 2 * gib })).toBe(2 * gib / HEAP_PER_CALL);
    expect(defaultMaxCallsPerInstance({ openFiles: Infinity, heapLimitBytes: gib })).toBe(gib / HEAP_PER_CALL);
    // No /proc to read: Linux's usual soft limit is assumed.
    expect(defaultMaxCallsPerInstance({ heapLimitBytes: 4 * gib })).toBe((ASSUMED_OPEN_FILES - 64) / 2);
    expect(readMaxCallsPerInstance({}, () => ({ openFiles: 1024, heapLimitBytes: 4 * gib }))).toBe(480);
  });

  test.runIf(process.platform === 'linux')('reads the open-file limit this process has, as `ulimit -n` says it', () => {
    const soft = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim();
    expect(readInstanceResources().openFiles).toBe(soft === 'unlimited' ? Infinity : Number(soft));
    expect(readInstanceResources().heapLimitBytes).toBeGreaterThan(0);
  });

  test('a default bound is sized from what the process has once a first call took its room, not at start', async () => {
    const slots = createCallSlots();
    // Nothing is read at start (no /proc, no node:v8 on a cold start's path): the files assumed bound it.
    expect(slots.perInstance).toBe((ASSUMED_OPEN_FILES - 64) / 2);
    const slot = slots.take('caller', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } });
    expect(typeof slot).toBe('function');
    await new Promise((resolve) => setImmediate(resolve));
    expect(slots.perInstance).toBe(defaultMaxCallsPerInstance(readInstanceResources()));
    (slot as () => void)();
  });
});

describe('work that outlives its call', () => {
  let deadlined: TestServer;
  beforeAll(async () => {
    deadlined = await startTestServer(createMcpHandler(createDefaultApp({
      MCP_LOG: 'off',
      MCP_MAX_CALLS_PER_INSTANCE: '1',
      AGENT_REPLY_DEADLINE_MS: '600',
      AGENT_TASK_AFTER_MS: '300',
      AGENTS: JSON.stringify([{ id: 'echo', format: 'openai', url: `${upstream.url}/v1`, model: 'test-model' }]),
    })));
  });
  afterAll(() => deadlined?.close());

  /** Asks again from `address` until the instance has room (the work holding it ended), for at most ~10 s. */
  async function whenRoom(address: string, message: string) {
    let next = await postFrom(address, deadlined.mcpUrl, chat(message), LEGACY);
    for (let i = 0; next.status === 503 && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      next = await postFrom(address, deadlined.mcpUrl, chat(message), LEGACY);
    }
    return next;
  }

  test('a run past its reply deadline keeps its call\'s room until it ends: the instance is full while it streams, free after', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const message = slow();
    const answered = await postFrom('127.0.0.13', deadlined.mcpUrl, chat(message), LEGACY);
    // Answered at the deadline with the reply so far; the run goes on in the background, reading its upstream.
    expect(answered.status).toBe(200);
    expect(answered.json.result.isError).toBeUndefined();
    expect(answered.json.result.content[0].text).toContain('call chat_with_agent again');
    expect((await postFrom('127.0.0.14', deadlined.mcpUrl, chat('meanwhile'), LEGACY)).status).toBe(503);

    const next = await whenRoom('127.0.0.14', 'after the run');
    expect(next.status).toBe(200);
    // The run ended by reading its reply to the end, not by being cut off.
    expect(await upstream.closedFor(message)).toBe(false);
    warn.mockRestore();
  }, 30_000);

  test('a call that became a task keeps its room while the task works (2026-07-28, tasks extension)', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const message = slow();
    const response = await postModern(deadlined.mcpUrl, 1, 'tools/call', { name: 'chat_with_agent', arguments: { message } },
      { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    expect((await response.json()).result).toMatchObject({ resultType: 'task', status: 'working' });
    expect((await postFrom('127.0.0.15', deadlined.mcpUrl, chat('meanwhile'), LEGACY)).status).toBe(503);
    expect((await whenRoom('127.0.0.15', 'after the task')).status).toBe(200);
    expect(await upstream.closedFor(message)).toBe(false);
    warn.mockRestore();
  }, 30_000);
});
