/**
 * The event log of a 2025-11-25 stream (SEP-1699 polling) is bounded (MCP_MAX_STREAM_LOG_BYTES): a call that
 * keeps streaming after its stream closed early has at most the bound of its events kept, the rest go out live
 * only, and the call's reply is always kept, so a client that resumes still gets its answer. Real HTTP, the
 * memory store's log read back.
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

const BOUND = 64 * 1024;
const NOTIFICATIONS = 2_000;
const store = new MemoryStore();
let server: TestServer;

/** Ends its client's stream at once, then logs `count` messages of 500 characters, then answers. */
const chatty: ToolDefinition<any> = {
  name: 'chatty_after_close',
  description: 'Keeps streaming after its stream closed early.',
  input: z.object({ count: z.number().int() }),
  async run({ count }: { count: number }, ctx) {
    ctx.outbound?.closeStream?.();
    for (let i = 0; i < count; i++) ctx.log('info', `${i} ${'x'.repeat(500)}`);
    return { content: [{ type: 'text', text: `sent ${count}` }] };
  },
};

beforeAll(async () => {
  const app = createApp({
    definitions: [{ tools: [chatty] }],
    store,
    stateSecret: 'l'.repeat(32),
    origin: { local: true, allowedOrigins: new Set() },
    bounds: { ...DEFAULT_REQUEST_BOUNDS, maxStreamLogBytes: BOUND },
  });
  server = await startTestServer(createMcpHandler(app));
});
afterAll(() => server.close());

test(`a call streaming ${NOTIFICATIONS} notifications after its stream closed early has at most the bound logged, and a resuming client still gets the reply`, async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const session = await openSession(server.mcpUrl);
  const response = await post(server.mcpUrl, { jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'chatty_after_close', arguments: { count: NOTIFICATIONS } } }, session);
  const priming = await readSse(response).next();
  const streamId = priming!.id!.replace(/_0$/, '');

  const resumed = await fetch(server.mcpUrl, { headers: { ...session, accept: 'text/event-stream', 'last-event-id': priming!.id! } });
  const events = await readSse(resumed).rest();
  expect(events.at(-1)).toMatchObject({ id: 'c1', result: { content: [{ text: `sent ${NOTIFICATIONS}` }] } });

  const logged = await store.range<LoggedEvent>(eventLogKey(streamId), 0);
  const notifications = logged.filter((e) => e.message && 'method' in e.message);
  const bytes = notifications.reduce((n, e) => n + JSON.stringify(e.message).length, 0);
  expect(bytes).toBeLessThanOrEqual(BOUND);
  expect(notifications.length).toBeGreaterThan(0);
  expect(notifications.length).toBeLessThan(NOTIFICATIONS);
  expect(events).toHaveLength(notifications.length + 1);
  expect(warn).toHaveBeenCalledWith(`[agent-mcp] stopped logging 1 stream(s) at MCP_MAX_STREAM_LOG_BYTES=${BOUND}; their later notifications were sent live only`);
  warn.mockRestore();
});
