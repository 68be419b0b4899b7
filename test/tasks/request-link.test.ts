/**
 * A chat_with_agent call of a 2026-07-28 client that declared the tasks extension, over real loopback HTTP with the
 * test-only upstream agent process (the edge standing in for a hosted LLM): while the call may still answer in the
 * response its progress and trace context are the request's, exactly as without tasks; once it is a task they stop
 * (SEP-2663: progress notifications are not supported on tasks).
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp } from '../../lib/app.js';
import { TASKS_EXTENSION } from '../../lib/protocol/tasks.js';
import { postModern, readSse } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

let upstream: Upstream;
let quick: TestServer;
let slow: TestServer;

beforeAll(async () => {
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
  upstream = await startUpstream();
  const env = (after: string) => ({ AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'test-model', MCP_LOG: 'off', AGENT_TASK_AFTER_MS: after });
  // One server waits long enough for the agent to answer in the response; on the other every slow reply becomes a task.
  [quick, slow] = await Promise.all([
    startTestServer(createMcpHandler(createDefaultApp(env('10000')))),
    startTestServer(createMcpHandler(createDefaultApp(env('300')))),
  ]);
});
afterAll(async () => {
  vi.restoreAllMocks();
  await Promise.all([quick?.close(), slow?.close()]);
  upstream?.stop();
});

/** The call with a progress token and a traceparent; every message of its response, in order. */
async function chat(url: string, message: string): Promise<any[]> {
  const response = await postModern(url, 1, 'tools/call', { name: 'chat_with_agent', arguments: { message } }, {
    capabilities: WITH_TASKS, meta: { progressToken: 'p1' }, headers: { traceparent: TRACEPARENT },
  });
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  return readSse(response).rest();
}

const progressOf = (messages: any[]) => messages.filter((m) => m.method === 'notifications/progress').map((m) => m.params);

describe('a task-capable client\'s call before it becomes a task', () => {
  test('answered within AGENT_TASK_AFTER_MS, it streams progress and carries the trace context, as without tasks', async () => {
    const message = 'fault:slow streamed while the request is open';
    const messages = await chat(quick.mcpUrl, message);
    const progress = progressOf(messages);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.every((p) => p.progressToken === 'p1')).toBe(true);
    expect(progress.map((p) => p.message).join('')).toContain('streamed while the request');
    expect(messages.at(-1).result).toMatchObject({ resultType: 'complete', content: [{ text: expect.stringContaining('streamed while') }] });
    const [seen] = await upstream.requestsFor(message);
    expect(seen?.traceparent).toBe(TRACEPARENT);
  });

  test('once slower than AGENT_TASK_AFTER_MS, the progress sent until then precedes the task, and the stream ends with it', async () => {
    const message = 'fault:slow a reply long enough to outlast three hundred milliseconds of waiting';
    const messages = await chat(slow.mcpUrl, message);
    const last = messages.at(-1);
    expect(last.result).toMatchObject({ resultType: 'task', status: 'working' });
    expect(progressOf(messages.slice(0, -1)).length).toBeGreaterThan(0);
    const [seen] = await upstream.requestsFor(message);
    expect(seen?.traceparent).toBe(TRACEPARENT);
    // The task still finishes, with the whole reply, though nothing more went to the closed request.
    for (let id = 2; ; id++) {
      const got = await postModern(slow.mcpUrl, id, 'tasks/get', { taskId: last.result.taskId }, { capabilities: WITH_TASKS, headers: { 'mcp-name': last.result.taskId } });
      const { result } = await got.json() as any;
      if (result.status === 'working') { await new Promise((resolve) => setTimeout(resolve, 100)); continue; }
      expect(result).toMatchObject({ status: 'completed', result: { content: [{ text: expect.stringContaining('three hundred milliseconds') }] } });
      break;
    }
  });
});
