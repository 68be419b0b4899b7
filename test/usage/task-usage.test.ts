/**
 * A call answered with a task is counted once, when its run ends, with every token the run spent (its tokens are
 * spent after the answer): on the 2025-11-25 wire (the client asks for the task) and the 2026-07-28 wire (a call
 * slower than AGENT_TASK_AFTER_MS becomes one). Unknown usage stays unknown, never zero; a failed run is an error.
 * Real HTTP on loopback against the deployment's app on the memory store, an in-process agent that spends the tokens
 * its message names.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import type { InProcessAgentDefinition } from '../../lib/agent/index.js';
import { createDefaultApp, type App } from '../../lib/app.js';
import { TASKS_EXTENSION } from '../../lib/protocol/tasks.js';
import { readUsage } from '../../lib/usage/read.js';
import type { UsageView } from '../../lib/usage/view.js';
import { createMeteredAgent } from '../support/metered-agent.js';
import { openSession, post, postModern } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Fails after it became a task. */
const faulty: InProcessAgentDefinition = {
  id: 'faulty', name: 'Faulty', description: 'Breaks after a while.',
  async *reply() {
    await new Promise((resolve) => setTimeout(resolve, 100));
    throw new Error('the agent broke');
  },
};

let app: App;
let server: TestServer;
beforeAll(async () => {
  // Each model request takes 100 ms, so any call here outlives AGENT_TASK_AFTER_MS and spends its tokens as a task.
  app = createDefaultApp({ MCP_LOG: 'off', AGENT_TASK_AFTER_MS: '20', AGENT_REPLY_DEADLINE_MS: 'off' }, { agents: [createMeteredAgent('metered', { delayMs: 100 }).definition, faulty] });
  server = await startTestServer(createMcpHandler(app));
});
afterAll(() => server?.close());

/** The hour's counters once every request so far is written, its tasks' runs ended included. */
async function counted(): Promise<UsageView> {
  await app.usage!.settled();
  return readUsage(app.store, 'hour');
}

let id = 0;
const WITH_TASKS = { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } };
const args = (message: string, agent = 'metered') => ({ name: 'chat_with_agent', arguments: { message, agent_id: agent } });

/** A chat call as a task on `era`'s wire; its task's result once the task has ended. */
async function chatAsTask(era: 'legacy' | 'modern', message: string, agent?: string): Promise<any> {
  if (era === 'modern') {
    const created = await (await postModern(server.mcpUrl, ++id, 'tools/call', args(message, agent), WITH_TASKS)).json();
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    await app.usage!.settled();
    const got = await (await postModern(server.mcpUrl, ++id, 'tasks/get', { taskId: created.result.taskId }, { ...WITH_TASKS, headers: { 'mcp-name': created.result.taskId } })).json();
    return got.result.result;
  }
  const session = await openSession(server.mcpUrl);
  const created = await (await post(server.mcpUrl, { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { ...args(message, agent), task: { ttl: 60_000 } } }, session)).json();
  expect(created.result.task).toMatchObject({ status: 'working' });
  await app.usage!.settled();
  const fetched = await (await post(server.mcpUrl, { jsonrpc: '2.0', id: ++id, method: 'tasks/result', params: { taskId: created.result.task.taskId } }, session)).json();
  return fetched.result;
}

describe.each(['legacy', 'modern'] as const)('a chat call answered with a task on the %s wire', (era) => {
  test('is counted once its run ends: one call, every token its run spent', async () => {
    const before = await counted();
    const result = await chatAsTask(era, '3x100+10');
    expect(result.content[0].text).toBe('3 model requests: 300 input and 30 output tokens');
    const after = await counted();
    expect(after.totals).toMatchObject({
      calls: before.totals.calls + 1, errors: before.totals.errors,
      inputTokens: before.totals.inputTokens + 300, outputTokens: before.totals.outputTokens + 30, unknownUsageCalls: before.totals.unknownUsageCalls,
    });
    // Counted once: later requests (reading the task) add nothing.
    expect((await counted()).totals).toEqual(after.totals);
  });

  test('whose upstream reported no usage is an unknown-usage call, never zero tokens counted as known', async () => {
    const before = await counted();
    await chatAsTask(era, '2xunknown');
    const after = await counted();
    expect(after.totals).toMatchObject({
      calls: before.totals.calls + 1, inputTokens: before.totals.inputTokens, unknownUsageCalls: before.totals.unknownUsageCalls + 1,
    });
  });

  test('whose run fails is counted as an error', async () => {
    const before = await counted();
    const result = await chatAsTask(era, 'hello', 'faulty');
    expect(result.isError).toBe(true);
    const after = await counted();
    expect(after.totals).toMatchObject({ calls: before.totals.calls + 1, errors: before.totals.errors + 1 });
  });
});
