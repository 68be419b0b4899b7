/**
 * The tasks extension on the 2026-07-28 wire over real loopback HTTP (SEP-2663): negotiation, the routing
 * header, and input asked inside a task, answered in parts with tasks/update.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { SKILLS_EXTENSION } from '../../lib/protocol/skills.js';
import { TASKS_EXTENSION } from '../../lib/protocol/tasks.js';
import { createConformanceHandler } from '../fixtures/conformance-handler.js';
import { postModern } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';

const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(createConformanceHandler({ tasks: { ttlMs: 60_000, pollIntervalMs: 50, heartbeatMs: 1_000 } }));
});
afterAll(() => server?.close());

const call = (id: number, name: string, args: Record<string, unknown>, capabilities: Record<string, unknown> = WITH_TASKS) =>
  postModern(server.mcpUrl, id, 'tools/call', { name, arguments: args }, { capabilities });

const onTask = (id: number, method: string, params: { taskId: string } & Record<string, unknown>, headers: Record<string, string> = {}) =>
  postModern(server.mcpUrl, id, method, params, { capabilities: WITH_TASKS, headers: { 'mcp-name': params.taskId, ...headers } });

async function waitFor(taskId: string, status: string): Promise<any> {
  for (let id = 1000; ; id++) {
    const { result } = await (await onTask(id, 'tasks/get', { taskId })).json();
    if (result.status === status) return result;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('negotiation', () => {
  test('server/discover advertises the extension under capabilities.extensions, beside the skills extension', async () => {
    const { result } = await (await postModern(server.mcpUrl, 1, 'server/discover')).json();
    expect(result.capabilities.extensions).toEqual({ [TASKS_EXTENSION]: {}, [SKILLS_EXTENSION]: { directoryRead: true } });
    expect(result.capabilities).not.toHaveProperty('tasks');
  });

  test('without the extension a task-supporting tool answers in the response, and tasks/get is 400 with -32021', async () => {
    const { result } = await (await call(2, 'slow_compute', { seconds: 0 }, {})).json();
    expect(result).toMatchObject({ resultType: 'complete', content: [{ text: expect.stringContaining('Computed') }] });
    const refused = await postModern(server.mcpUrl, 3, 'tasks/get', { taskId: 'x' }, { headers: { 'mcp-name': 'x' } });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } });
  });

  test('tasks/result and tasks/list do not exist on this wire: 404 with -32601', async () => {
    const gone = await onTask(4, 'tasks/result', { taskId: 'x' });
    expect(gone.status).toBe(404);
    expect((await gone.json()).error.code).toBe(-32601);
  });

  test('an Mcp-Name header that is not the taskId is 400 with -32020', async () => {
    const { result } = await (await call(5, 'slow_compute', { seconds: 30 })).json();
    const mismatched = await onTask(6, 'tasks/get', { taskId: result.taskId }, { 'mcp-name': 'another-task' });
    expect(mismatched.status).toBe(400);
    expect((await mismatched.json()).error.code).toBe(-32020);
    await onTask(7, 'tasks/cancel', { taskId: result.taskId });
  });
});

describe('input inside a task', () => {
  test('a task asks two questions; one answer keeps it input_required with the other, the second completes it', async () => {
    const created = (await (await call(10, 'multi_input', {})).json()).result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    expect(created).not.toHaveProperty('inputRequests');

    const asking = await waitFor(created.taskId, 'input_required');
    const [first, second] = Object.keys(asking.inputRequests);
    expect(asking.inputRequests[first!]).toMatchObject({ method: 'elicitation/create' });
    const answer = (name: string) => ({ action: 'accept', content: { name } });

    const ack = await (await onTask(11, 'tasks/update', { taskId: created.taskId, inputResponses: { [first!]: answer('Ada'), unknown: answer('x') } })).json();
    expect(ack.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    const partial = (await (await onTask(12, 'tasks/get', { taskId: created.taskId })).json()).result;
    expect(partial).toMatchObject({ status: 'input_required' });
    expect(Object.keys(partial.inputRequests)).toEqual([second]);

    await onTask(13, 'tasks/update', { taskId: created.taskId, inputResponses: { [second!]: answer('Grace') } });
    const done = await waitFor(created.taskId, 'completed');
    expect(done.result.content).toEqual([{ type: 'text', text: 'Got Ada and Grace.' }]);
    expect(done).not.toHaveProperty('requestState');
  });
});

describe('the bound on anonymous tasks (TASK_MAX_ANONYMOUS)', () => {
  let bounded: TestServer;
  beforeAll(async () => {
    bounded = await startTestServer(createConformanceHandler({ tasks: { ttlMs: 60_000, pollIntervalMs: 50, maxAnonymous: 1 } }));
  });
  afterAll(() => bounded?.close());

  test('past the bound a task-capable client\'s call answers in the response instead of becoming a task', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const ask = (id: number, seconds: number) => postModern(bounded.mcpUrl, id, 'tools/call', { name: 'slow_compute', arguments: { seconds } }, { capabilities: WITH_TASKS })
      .then((r) => r.json() as Promise<any>);
    expect((await ask(1, 30)).result).toMatchObject({ resultType: 'task', status: 'working' });
    expect((await ask(2, 0.2)).result).toMatchObject({ resultType: 'complete', content: [{ text: 'Computed result after 0.2 s.' }] });
    expect(warn.mock.calls.flat().join('\n')).toContain('TASK_MAX_ANONYMOUS=1');
  });
});
