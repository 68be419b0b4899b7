/**
 * Tasks across processes (docs/tasks.md): two agent-mcp processes on one real redis-server (behind the Upstash
 * REST bridge) and a real upstream agent. A chat call that outlives AGENT_TASK_AFTER_MS becomes a task on one
 * process and is polled, fetched and cancelled on the other; a task whose process dies is reported failed.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TASKS_EXTENSION } from '../../lib/protocol/tasks.js';
import { startInstances, type Instances } from '../support/instances.js';
import { openSession, post, postModern, readSse } from '../support/rpc.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

const WITH_TASKS = { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } };

let redis: SharedRedis;
let upstream: Upstream;
let env: Record<string, string>;
let pair: Instances;
beforeAll(async () => {
  [redis, upstream] = await Promise.all([startSharedRedis(), startUpstream()]);
  env = {
    ...redis.bridge.env, INSTANCE_APP: 'default', AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'test-model',
    // Short beats and watch ticks, so a death or a cancellation crosses processes within a second or two.
    STORE_WATCH_MS: '300', TASK_HEARTBEAT_MS: '300', AGENT_TASK_AFTER_MS: '300',
  };
  pair = await startInstances(2, env);
}, 60_000);
afterAll(async () => {
  await pair?.stop();
  upstream?.stop();
  await redis?.stop();
});

const chat = (url: string, id: number, message: string) =>
  postModern(url, id, 'tools/call', { name: 'chat_with_agent', arguments: { message } }, WITH_TASKS).then((r) => r.json() as Promise<any>);

const taskRequest = (url: string, id: number, method: string, taskId: string) =>
  postModern(url, id, method, { taskId }, { ...WITH_TASKS, headers: { 'mcp-name': taskId } }).then((r) => r.json() as Promise<any>);

/** Polls tasks/get on `url` until the task leaves `working` (bounded by the test's timeout). */
async function settle(url: string, taskId: string): Promise<any> {
  for (let id = 100; ; id++) {
    const { result } = await taskRequest(url, id, 'tasks/get', taskId);
    if (result.status !== 'working') return result;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a slow chat call becomes a task any process can follow', () => {
  test('a chat call slower than AGENT_TASK_AFTER_MS returns a task; another process polls it to the reply', async () => {
    const [first, second] = pair.urls as [string, string];
    const created = await chat(first, 1, 'fault:wait 1500 the long question');
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working', ttlMs: expect.any(Number) });

    const done = await settle(second, created.result.taskId);
    expect(done).toMatchObject({ status: 'completed', resultType: 'complete' });
    expect(done.result.content[0].text).toContain('Echo: fault:wait 1500 the long question');
    expect(done.result.structuredContent.session_id).toEqual(expect.any(String));
  });

  test('a quick chat call answers as usual, even for a client that supports tasks', async () => {
    const quick = await chat(pair.urls[0]!, 2, 'a short question');
    expect(quick.result).toMatchObject({ resultType: 'complete', structuredContent: { reply: expect.stringContaining('a short question') } });
  });

  test('a task cancelled on the other process ends cancelled, and its agent request is dropped', async () => {
    const [first, second] = pair.urls as [string, string];
    const created = await chat(first, 3, 'fault:hang cancel me');
    expect(created.result.resultType).toBe('task');

    const ack = await taskRequest(second, 4, 'tasks/cancel', created.result.taskId);
    expect(ack.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    expect((await taskRequest(first, 5, 'tasks/get', created.result.taskId)).result.status).toBe('cancelled');
    // The process running it saw the end at its next watch tick and aborted the upstream call.
    await upstream.waitFor((log) => log.some((e) => e.kind === 'closed' && JSON.stringify(e.body).includes('cancel me')));
  });

  test('a legacy client creates a task on one process and blocks on tasks/result on the other', async () => {
    const [first, second] = pair.urls as [string, string];
    const session = await openSession(first);
    const created = await (await post(first, {
      jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message: 'fault:wait 500 legacy' }, task: { ttl: 60_000 } },
    }, session)).json();
    expect(created.result.task).toMatchObject({ status: 'working', ttl: expect.any(Number) });

    // The wait is a stream: the terminal status (notifications/tasks/status), then the tool result.
    const messages = await readSse(await post(second, { jsonrpc: '2.0', id: 7, method: 'tasks/result', params: { taskId: created.result.task.taskId } }, session)).rest();
    expect(messages[0]).toMatchObject({ method: 'notifications/tasks/status', params: { taskId: created.result.task.taskId, status: 'completed' } });
    const fetched = messages.at(-1);
    expect(fetched.result.content[0].text).toContain('Echo: fault:wait 500 legacy');
    expect(fetched.result._meta['io.modelcontextprotocol/related-task']).toEqual({ taskId: created.result.task.taskId });
  });
});

describe('a task whose process died', () => {
  test('is reported failed on the other process once its heartbeat stops, never working forever', async () => {
    const doomed = await startInstances(2, env);
    try {
      const [dying, surviving] = doomed.urls as [string, string];
      const created = await chat(dying, 8, 'fault:hang until the process dies');
      expect(created.result.resultType).toBe('task');
      expect((await taskRequest(surviving, 9, 'tasks/get', created.result.taskId)).result.status).toBe('working');

      await doomed.kill(0);
      const failed = await settle(surviving, created.result.taskId);
      expect(failed).toMatchObject({ status: 'failed', error: { code: -32603, message: expect.stringContaining('stopped before it finished') } });
      expect(failed).not.toHaveProperty('result');
    } finally {
      await doomed.stop();
    }
  }, 30_000);
});
