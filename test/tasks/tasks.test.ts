/**
 * The rules of a task's life (lib/tasks/): whose it is, how long it lives, and what a dead instance leaves behind.
 * Calls go through the real dispatcher with a memory store; the clock is frozen where time matters.
 */

import { afterEach, describe, expect, test, vi } from 'vitest';
import { createDefaultApp } from '../../lib/app.js';
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION } from '../../lib/protocol/meta.js';
import { TASKS_EXTENSION } from '../../lib/protocol/tasks.js';
import { Caller } from '../../lib/server/caller.js';
import type { CallContext, Principal } from '../../lib/server/context.js';
import { MemoryStore } from '../../lib/store/memory.js';
import { endTask, readTask, writeRecord, type TaskRecord } from '../../lib/tasks/record.js';
import { DEFAULT_TASK_SETTINGS, HEARTBEAT_MISSES } from '../../lib/tasks/settings.js';
import { createConformanceApp } from '../fixtures/conformance-handler.js';

const SETTINGS = { ...DEFAULT_TASK_SETTINGS, ttlMs: 60_000, pollIntervalMs: 100, heartbeatMs: 1_000 };
const CAPABILITIES = { extensions: { [TASKS_EXTENSION]: {} } };

function modernCall(store: MemoryStore, principal?: Principal): CallContext {
  return { era: 'modern', protocolVersion: '2026-07-28', principal, caller: new Caller(principal), clientCapabilities: CAPABILITIES, store };
}

function request(id: number, method: string, params: Record<string, unknown>) {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: { [META_PROTOCOL_VERSION]: '2026-07-28', [META_CLIENT_CAPABILITIES]: CAPABILITIES } } };
}

const ada: Principal = { subject: 'ada', scopes: [] };
const bob: Principal = { subject: 'bob', scopes: [] };

afterEach(() => vi.useRealTimers());

describe('whose task it is', () => {
  test('a task of another principal is an unknown task (-32602) for get, update and cancel, and keeps running', async () => {
    const store = new MemoryStore();
    const app = createConformanceApp({ store, tasks: SETTINGS });
    const created: any = await app.dispatch(request(1, 'tools/call', { name: 'slow_compute', arguments: { seconds: 30 } }), modernCall(store, ada));
    const { taskId } = created.result;
    expect(created.result.resultType).toBe('task');

    for (const [method, extra] of [['tasks/get', {}], ['tasks/update', { inputResponses: {} }], ['tasks/cancel', {}]] as const) {
      const refused: any = await app.dispatch(request(2, method, { taskId, ...extra }), modernCall(store, bob));
      expect(refused.error).toEqual({ code: -32602, message: 'Unknown task.' });
    }
    const anonymous: any = await app.dispatch(request(3, 'tasks/get', { taskId }), modernCall(store));
    expect(anonymous.error.code).toBe(-32602);
    const own: any = await app.dispatch(request(4, 'tasks/get', { taskId }), modernCall(store, ada));
    expect(own.result).toMatchObject({ taskId, status: 'working' });
    await app.dispatch(request(5, 'tasks/cancel', { taskId }), modernCall(store, ada));
  });

  test('an anonymous caller\'s task is reached by its id alone, the unguessable capability the server issued', async () => {
    const store = new MemoryStore();
    const app = createConformanceApp({ store, tasks: SETTINGS });
    const created: any = await app.dispatch(request(1, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }), modernCall(store));
    const { taskId } = created.result;
    expect(taskId).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/);
    const forged = `${taskId.slice(0, 23)}${taskId[23] === 'A' ? 'B' : 'A'}${taskId.slice(24)}`;
    expect(((await app.dispatch(request(2, 'tasks/get', { taskId: forged }), modernCall(store))) as any).error.code).toBe(-32602);
    expect(((await app.dispatch(request(3, 'tasks/get', { taskId }), modernCall(store))) as any).result.taskId).toBe(taskId);
  });
});

describe('how long a task lives', () => {
  test('a finished task is kept TASK_TTL_MS after its last change, then it is an unknown task', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = new MemoryStore();
    const app = createConformanceApp({ store, tasks: SETTINGS });
    const created: any = await app.dispatch(request(1, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }), modernCall(store));
    const { taskId } = created.result;
    let got: any;
    do {
      await new Promise((resolve) => setTimeout(resolve, 10));
      got = await app.dispatch(request(2, 'tasks/get', { taskId }), modernCall(store));
    } while (got.result.status === 'working');
    expect(got.result).toMatchObject({ status: 'completed', ttlMs: SETTINGS.ttlMs });

    vi.advanceTimersByTime(SETTINGS.ttlMs - 1_000);
    expect(((await app.dispatch(request(3, 'tasks/get', { taskId }), modernCall(store))) as any).result.status).toBe('completed');
    vi.advanceTimersByTime(2_000);
    expect(((await app.dispatch(request(4, 'tasks/get', { taskId }), modernCall(store))) as any).error).toEqual({ code: -32602, message: 'Unknown task.' });
  });
});

describe('a task whose instance stopped beating', () => {
  const record = (beat: number): TaskRecord => ({
    tool: 'slow_compute', args: {}, era: 'modern', protocolVersion: '2026-07-28', clientCapabilities: {},
    createdAt: 0, updatedAt: 0, status: 'working', beat, round: 0,
  });

  test(`is working while its last beat is within ${HEARTBEAT_MISSES} beats, failed after, and stays failed when its work finishes late`, async () => {
    const ref = { store: new MemoryStore(), owner: 'ada', taskId: 't1', settings: SETTINGS };
    const beat = Date.now();
    await writeRecord(ref, record(beat));
    expect((await readTask(ref, beat + SETTINGS.heartbeatMs * HEARTBEAT_MISSES))!.view.status).toBe('working');

    const dead = (await readTask(ref, beat + SETTINGS.heartbeatMs * HEARTBEAT_MISSES + 1))!.view;
    expect(dead).toMatchObject({ status: 'failed', error: { code: -32603, message: expect.stringContaining('stopped before it finished') } });
    // The instance was only slow: its late outcome cannot overwrite the terminal status a client has seen.
    expect(await endTask(ref, { status: 'completed', result: { content: [] } })).toMatchObject({ status: 'failed' });
    expect((await readTask(ref))!.view.status).toBe('failed');
  });
});

describe('task settings are read at start-up', () => {
  test.each([
    ['TASK_TTL_MS', 'soon'],
    ['TASK_POLL_INTERVAL_MS', '0'],
    ['TASK_HEARTBEAT_MS', '-5'],
    ['AGENT_TASK_AFTER_MS', '1.5'],
    ['TASK_MAX_PER_CALLER', '0'],
    ['TASK_MAX_ANONYMOUS', 'many'],
  ])('%s=%s is a TypeError naming the variable', (name, value) => {
    expect(() => createDefaultApp({ [name]: value })).toThrow(new RegExp(`^${name} must be`));
  });
});
