/**
 * Experimental tasks on the 2025-11-25 wire (SEP-1686) with the official v1 SDK client's task support
 * (`client.experimental.tasks`) over real loopback HTTP: capability, `execution.taskSupport`, task-augmented
 * tools/call, tasks/get|result|list|cancel, and a task another session cannot see.
 */

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createConformanceHandler } from '../fixtures/conformance-handler.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectV1, createTask } from '../support/v1-tasks.js';

const SETTINGS = { ttlMs: 60_000, pollIntervalMs: 50, heartbeatMs: 1_000 };



describe('legacy experimental tasks with the v1 SDK client', () => {
  let server: TestServer;
  let client: Client;
  let other: Client;

  beforeAll(async () => {
    server = await startTestServer(createConformanceHandler({ tasks: SETTINGS }));
    [client, other] = await Promise.all([connectV1(server.mcpUrl), connectV1(server.mcpUrl)]);
  });
  afterAll(async () => {
    await Promise.all([client?.close(), other?.close()]);
    await server?.close();
  });

  test('initialize declares the tasks capability for task-augmented tool calls, list and cancel', () => {
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
  });

  test('tools/list names each tool\'s execution.taskSupport; tools without it have none', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('failing_job')?.execution).toEqual({ taskSupport: 'required' });
    expect(byName.get('slow_compute')?.execution).toEqual({ taskSupport: 'optional' });
    expect(byName.get('greet')?.execution).toBeUndefined();
  });

  test('callToolStream creates a task, follows its status and yields the tool result from tasks/result', async () => {
    const kinds: string[] = [];
    let result: any;
    for await (const message of client.experimental.tasks.callToolStream({ name: 'slow_compute', arguments: { seconds: 0.3, label: 'v1' } }, CallToolResultSchema, { task: { ttl: 60_000 } })) {
      kinds.push(message.type);
      if (message.type === 'result') result = message.result;
      if (message.type === 'error') throw message.error;
    }
    expect(kinds[0]).toBe('taskCreated');
    expect(kinds.at(-1)).toBe('result');
    expect(result.content).toEqual([{ type: 'text', text: 'Computed v1 after 0.3 s.' }]);
  });

  test('a required-task tool called without params.task is -32601 (2025-11-25 tasks §Tool-Level Negotiation)', async () => {
    await expect(client.request({ method: 'tools/call', params: { name: 'failing_job', arguments: {} } }, CallToolResultSchema))
      .rejects.toMatchObject({ code: -32601 });
  });

  test('a task-augmented call of a tool without task support is -32601', async () => {
    await expect(createTask(client, 'greet', { name: 'x' })).rejects.toMatchObject({ code: -32601 });
  });

  test('tasks/list lists the session\'s tasks; tasks/cancel cancels once, then -32602 for the terminal task', async () => {
    const { task } = await createTask(client, 'slow_compute', { seconds: 30 });
    const { tasks } = await client.experimental.tasks.listTasks();
    expect(tasks.map((t) => t.taskId)).toContain(task.taskId);
    expect(await client.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'cancelled' });
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
  });

  test('a client blocked on tasks/result hears notifications/tasks/status with the terminal status on its stream', async () => {
    const statuses: unknown[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => void statuses.push(notification.params));
    const { task } = await createTask(client, 'slow_compute', { seconds: 0.3, label: 'heard' });
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'Computed heard after 0.3 s.' }]);
    expect(statuses).toEqual([expect.objectContaining({ taskId: task.taskId, status: 'completed' })]);
  });

  test('a failed task\'s tasks/result is its JSON-RPC error', async () => {
    const { task } = await createTask(client, 'protocol_error_job', {});
    await expect(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toMatchObject({ code: -32603 });
  });

  test('a legacy task whose tool asks for input fails with -32602 saying so: the 2025-11-25 wire cannot answer it', async () => {
    const { task } = await createTask(client, 'confirm_delete', { filename: 'a.txt' });
    await expect(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema))
      .rejects.toMatchObject({ code: -32602, message: expect.stringContaining('call it without params.task') });
  });

  test('another session cannot see, fetch or cancel the task: it is unknown (-32602) and not listed', async () => {
    const { task } = await createTask(client, 'slow_compute', { seconds: 30 });
    await expect(other.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Unknown task') });
    await expect(other.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
    expect((await other.experimental.tasks.listTasks()).tasks).toEqual([]);
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'working' });
    await client.experimental.tasks.cancelTask(task.taskId);
  });
});

describe('the bound on tasks per caller (TASK_MAX_PER_CALLER) with the v1 SDK client', () => {
  let server: TestServer;
  let client: Client;
  let other: Client;

  beforeAll(async () => {
    server = await startTestServer(createConformanceHandler({ tasks: { ...SETTINGS, maxPerCaller: 2 } }));
    [client, other] = await Promise.all([connectV1(server.mcpUrl), connectV1(server.mcpUrl)]);
  });
  afterAll(async () => {
    await Promise.all([client?.close(), other?.close()]);
    await server?.close();
  });

  test('past the bound a task-augmented call is -32603 naming TASK_MAX_PER_CALLER; tasks/list holds the bound; another session is not affected', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const made = [await createTask(client, 'slow_compute', { seconds: 0 }), await createTask(client, 'slow_compute', { seconds: 0 })];
    await expect(createTask(client, 'slow_compute', { seconds: 0 }))
      .rejects.toMatchObject({ code: -32603, message: expect.stringContaining('TASK_MAX_PER_CALLER'), data: { maxTasks: 2 } });
    // Finished tasks still count: they are kept, results and all, until they expire.
    const { tasks } = await client.experimental.tasks.listTasks();
    expect(tasks.map((t) => t.taskId).sort()).toEqual(made.map(({ task }) => task.taskId).sort());
    expect(await createTask(other, 'slow_compute', { seconds: 0 })).toMatchObject({ task: { status: 'working' } });
    // The same call without params.task still answers.
    const answer = await client.request({ method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 0 } } }, CallToolResultSchema);
    expect(answer.content).toEqual([{ type: 'text', text: 'Computed result after 0 s.' }]);
    expect(warn.mock.calls.flat().join('\n')).toContain('TASK_MAX_PER_CALLER=2');
  });
});
