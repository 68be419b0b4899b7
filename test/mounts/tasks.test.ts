/**
 * A mounted server's tasks passed through (2025-11-25 mount, the v1 SDK's experimental tasks) over real loopback
 * HTTP: our caller gets a task of ours that wraps the mount's task, and tasks/get, tasks/result and tasks/cancel ask
 * the mount. Legacy callers use the official v1 SDK client's task API; 2026-07-28 callers poll tasks/get.
 */

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp } from '../../lib/app.js';
import { createMounts, type Mounts } from '../../lib/mounts/index.js';
import { TASKS_EXTENSION } from '../../lib/protocol/tasks.js';
import { postModern } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectV1, createTask } from '../support/v1-tasks.js';
import { startTaskMount, type TaskMount } from '../support/task-mount.js';
import { startModernDownstream, type ModernDownstream } from '../support/downstream-modern.js';
import { whoami } from '../support/mounts.js';

const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };

let mount: TaskMount;
let modern: ModernDownstream;
let mounts: Mounts;
let server: TestServer;
let client: Client;
let other: Client;


beforeAll(async () => {
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
  [mount, modern] = await Promise.all([startTaskMount(), startModernDownstream()]);
  mounts = createMounts({ mounts: [{ name: 'jobs', url: mount.url }, { name: 'm', url: modern.url }], waitMs: 10_000 });
  const app = createApp({
    definitions: [{ tools: [whoami] }], mounts, stateSecret: 'm'.repeat(32),
    tasks: { ttlMs: 60_000, pollIntervalMs: 50 }, origin: { local: true, allowedOrigins: new Set() },
  });
  server = await startTestServer(createMcpHandler(app));
  [client, other] = await Promise.all([connectV1(server.mcpUrl), connectV1(server.mcpUrl)]);
});
afterAll(async () => {
  await Promise.all([client?.close(), other?.close()]);
  await server?.close();
  await mounts?.close();
  await Promise.all([mount?.close(), modern?.close()]);
  vi.restoreAllMocks();
});


describe('a 2025-11-25 caller (v1 SDK client tasks API)', () => {
  test('tools/list marks a mounted task tool with the mount\'s execution.taskSupport', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('jobs.job')?.execution).toEqual({ taskSupport: 'optional' });
    expect(byName.get('jobs.must_task')?.execution).toEqual({ taskSupport: 'required' });
    expect(byName.get('whoami')?.execution).toBeUndefined();
  });

  test('callToolStream gets our task wrapping the mount\'s: its own id, the mount\'s result through tasks/result', async () => {
    const seen = mount.requests.length;
    const kinds: string[] = [];
    let result: any;
    let taskId = '';
    for await (const message of client.experimental.tasks.callToolStream({ name: 'jobs.job', arguments: { ms: 300 } }, CallToolResultSchema, { task: { ttl: 60_000 } })) {
      kinds.push(message.type);
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'result') result = message.result;
      if (message.type === 'error') throw message.error;
    }
    expect(kinds[0]).toBe('taskCreated');
    expect(result.content).toEqual([{ type: 'text', text: 'job done after 300 ms' }]);
    const asked = mount.requests.slice(seen);
    const call = asked.find((r) => r.method === 'tools/call');
    expect(call?.params).toMatchObject({ name: 'job', arguments: { ms: 300 }, task: { ttl: 60_000 } });
    const forwarded = asked.filter((r) => r.method.startsWith('tasks/'));
    expect(forwarded.length).toBeGreaterThan(0);
    // The mount's task id never reaches our caller, and ours never reaches the mount.
    const theirs = forwarded[0]!.params!.taskId as string;
    expect(theirs).not.toBe(taskId);
    expect(forwarded.every((r) => r.params!.taskId === theirs)).toBe(true);
    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
  });

  test('a tool error at the mount is the task\'s result, isError and all', async () => {
    const { task } = await createTask(client, 'jobs.job', { ms: 50, fail: true });
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'job failed after 50 ms' }] });
  });

  test('tasks/cancel cancels at the mount; our task and the mount\'s are both cancelled; a second cancel is -32602', async () => {
    const { task } = await createTask(client, 'jobs.job', { ms: 30_000 });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'working' });
    const seen = mount.requests.length;
    expect(await client.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    const cancel = mount.requests.slice(seen).find((r) => r.method === 'tasks/cancel');
    expect(cancel).toBeDefined();
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'cancelled' });
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
  });

  test('another session cannot see the wrapped task: unknown (-32602), not listed, and the mount is not asked', async () => {
    const { task } = await createTask(client, 'jobs.job', { ms: 30_000 });
    const seen = mount.requests.length;
    await expect(other.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Unknown task') });
    expect((await other.experimental.tasks.listTasks()).tasks).toEqual([]);
    expect(mount.requests.slice(seen).filter((r) => r.method.startsWith('tasks/'))).toEqual([]);
    expect((await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(task.taskId);
    await client.experimental.tasks.cancelTask(task.taskId);
  });

  test('a tool the mount requires as a task, called without params.task, is -32601', async () => {
    await expect(client.request({ method: 'tools/call', params: { name: 'jobs.must_task', arguments: { ms: 0 } } }, CallToolResultSchema))
      .rejects.toMatchObject({ code: -32601 });
  });
});

describe('a 2026-07-28 caller that declared the tasks extension', () => {
  const call = (id: number, args: Record<string, unknown>) =>
    postModern(server.mcpUrl, id, 'tools/call', { name: 'jobs.job', arguments: args }, { capabilities: WITH_TASKS }).then((r) => r.json() as Promise<any>);
  const onTask = (id: number, method: string, taskId: string) =>
    postModern(server.mcpUrl, id, method, { taskId }, { capabilities: WITH_TASKS, headers: { 'mcp-name': taskId } }).then((r) => r.json() as Promise<any>);

  test('gets a task wrapping the mount\'s; tasks/get follows the mount and inlines its result when completed', async () => {
    const { result: created } = await call(1, { ms: 300 });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    let got: any;
    for (let id = 2; ; id++) {
      ({ result: got } = await onTask(id, 'tasks/get', created.taskId));
      if (got.status !== 'working') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(got).toMatchObject({ taskId: created.taskId, status: 'completed', result: { content: [{ type: 'text', text: 'job done after 300 ms' }] } });
  });

  test('tasks/cancel cancels at the mount too', async () => {
    const { result: created } = await call(10, { ms: 30_000 });
    const seen = mount.requests.length;
    expect((await onTask(11, 'tasks/cancel', created.taskId)).result).toMatchObject({ resultType: 'complete' });
    expect(mount.requests.slice(seen).some((r) => r.method === 'tasks/cancel')).toBe(true);
    expect((await onTask(12, 'tasks/get', created.taskId)).result).toMatchObject({ status: 'cancelled' });
  });
});

describe('a 2026-07-28 mount, which is never asked for tasks', () => {
  test('a legacy task-augmented call of its tool is -32601, at once', async () => {
    await expect(createTask(client, 'm.echo', { text: 'x' })).rejects.toMatchObject({ code: -32601 });
  });

  test('a task-capable 2026-07-28 caller gets the answer in the response', async () => {
    const response = await postModern(server.mcpUrl, 20, 'tools/call', { name: 'm.echo', arguments: { text: 'inline' } }, { capabilities: WITH_TASKS });
    expect((await response.json() as any).result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'modern: inline' }] });
  });
});

// Last: it stops the mount.
describe('when the mount cannot be reached', () => {
  test('tasks/get is an error naming the mount and the task stays as it was; tasks/cancel still cancels ours and says so to the operator', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { task } = await createTask(client, 'jobs.job', { ms: 30_000 });
    await mount.close();
    await expect(client.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({ code: -32603, message: expect.stringContaining('jobs') });
    expect(await client.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ status: 'cancelled' });
    expect(warn.mock.calls.flat().join('\n')).toContain('cancelled here only');
  });
});
