/**
 * What all resumable streams of an instance keep in its memory is bounded (MCP_MAX_STREAM_LOG_MEMORY_BYTES): a
 * 2025-11-25 stream's events wait in memory until a client may need them, and a stream whose next event would pass
 * the instance's bound stops logging, with a log line naming the variable; its client still gets every event live,
 * and a client that resumes gets the events kept before and the reply. A stream's bytes come back once it ends, so
 * the next call logs again. Real HTTP, the memory store's log read back.
 */

import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import * as z from 'zod';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp } from '../../lib/app.js';
import { DEFAULT_REQUEST_BOUNDS } from '../../lib/http/bounds.js';
import { eventLogKey, type LoggedEvent } from '../../lib/http/sse.js';
import type { ToolDefinition } from '../../lib/server/registry.js';
import { MemoryStore } from '../../lib/store/memory.js';
import { openSession, post, readSse } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';

const MEMORY = 8 * 1024;
const NOTIFICATIONS = 100;
const store = new MemoryStore();
let server: TestServer;

/** Logs `count` messages of 500 characters while its stream is open, then (`close`) ends the stream early, and answers. */
const chatty: ToolDefinition<any> = {
  name: 'chatty_then_close',
  description: 'Streams, then closes its stream early.',
  input: z.object({ count: z.number().int(), close: z.boolean() }),
  async run({ count, close }: { count: number; close: boolean }, ctx) {
    for (let i = 0; i < count; i++) ctx.log('info', `${i} ${'x'.repeat(500)}`);
    if (close) ctx.outbound?.closeStream?.();
    return { content: [{ type: 'text', text: `sent ${count}` }] };
  },
};

beforeAll(async () => {
  const app = createApp({
    definitions: [{ tools: [chatty] }],
    store,
    stateSecret: 'm'.repeat(32),
    origin: { local: true, allowedOrigins: new Set() },
    bounds: { ...DEFAULT_REQUEST_BOUNDS, maxStreamLogMemoryBytes: MEMORY },
  });
  server = await startTestServer(createMcpHandler(app));
});
afterAll(() => server.close());

/** One call: what its stream delivered live, what a resumption from its priming event got, and what the log holds. */
async function callAndResume(session: Record<string, string>, id: string, close = true) {
  const response = await post(server.mcpUrl, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chatty_then_close', arguments: { count: NOTIFICATIONS, close } } }, session);
  const stream = readSse(response);
  const priming = (await stream.next())!;
  const live = await stream.rest();
  const resumed = await readSse(await fetch(server.mcpUrl, { headers: { ...session, accept: 'text/event-stream', 'last-event-id': priming.id! } })).rest();
  const logged = await store.range<LoggedEvent>(eventLogKey(priming.id!.replace(/_0$/, '')), 0);
  return { live, resumed, notifications: logged.filter((e) => e.message && 'method' in e.message) };
}

test(`streams past MCP_MAX_STREAM_LOG_MEMORY_BYTES together stop logging, say so, still reach their client live and still resume to the reply; what a stream held comes back when it ends`, async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const session = await openSession(server.mcpUrl);

  const first = await callAndResume(session, 'm1');
  // Every event went out live; only what fitted the instance's memory was kept for resumption.
  expect(first.live.filter((m) => m.method === 'notifications/message')).toHaveLength(NOTIFICATIONS);
  expect(first.notifications.length).toBeGreaterThan(0);
  expect(first.notifications.reduce((n, e) => n + JSON.stringify(e.message).length, 0)).toBeLessThanOrEqual(MEMORY);
  expect(first.resumed).toHaveLength(first.notifications.length + 1);
  expect(first.resumed.at(-1)).toMatchObject({ id: 'm1', result: { content: [{ text: `sent ${NOTIFICATIONS}` }] } });
  expect(warn).toHaveBeenCalledWith(expect.stringContaining(`[agent-mcp] stopped logging 1 stream(s) at MCP_MAX_STREAM_LOG_MEMORY_BYTES=${MEMORY}`));

  // The first stream's events went to the store when it closed early: the memory is free for the next call's.
  const second = await callAndResume(session, 'm2');
  expect(second.notifications).toHaveLength(first.notifications.length);
  expect(second.resumed.at(-1)).toMatchObject({ id: 'm2', result: { content: [{ text: `sent ${NOTIFICATIONS}` }] } });

  // A stream delivered whole gives its memory back too (nothing of it reaches the store).
  const whole = await callAndResume(session, 'm3', false);
  expect(whole.live.filter((m) => m.method === 'notifications/message')).toHaveLength(NOTIFICATIONS);
  const after = await callAndResume(session, 'm4');
  expect(after.notifications).toHaveLength(first.notifications.length);
  warn.mockRestore();
});
