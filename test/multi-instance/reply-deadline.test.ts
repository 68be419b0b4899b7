/**
 * Replies that outlive their call, across processes (issue 28; docs/agents.md "Slow agents"): two agent-mcp processes
 * on one real redis-server (behind the Upstash REST bridge) and a real upstream agent. The call that outlives
 * AGENT_REPLY_DEADLINE_MS answers on one process; the run goes on there; the follow-up lands on the other and gets the
 * whole reply; a stop sent to the other process aborts the upstream request on the first; a run whose process died is
 * reported, never waited for forever.
 */

import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startInstances, type Instances } from '../support/instances.js';
import { openSession, post } from '../support/rpc.js';
import { connectHttp, createV2Client } from '../support/sdk.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

let redis: SharedRedis;
let upstream: Upstream;
let env: Record<string, string>;
let pair: Instances;
const clients: Client[] = [];

beforeAll(async () => {
  [redis, upstream] = await Promise.all([startSharedRedis(), startUpstream()]);
  env = {
    ...redis.bridge.env, INSTANCE_APP: 'default', AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'test-model',
    // A short deadline, beats and watch ticks: a run's end, or a stop, crosses processes within a second.
    AGENT_REPLY_DEADLINE_MS: '600', STORE_WATCH_MS: '300', TASK_HEARTBEAT_MS: '300',
  };
  pair = await startInstances(2, env);
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await pair?.stop();
  upstream?.stop();
  await redis?.stop();
});

async function modernClient(url: string): Promise<Client> {
  const client = createV2Client('modern');
  await connectHttp(client, url);
  clients.push(client);
  return client;
}

const slowMessage = () => `fault:pace 100 ${crypto.randomUUID()} tell me more about it`;
const echoOf = (message: string) => `Echo: ${message} (history 0)`;

type Result = { isError?: boolean; structuredContent?: any; content?: unknown };
const chat = (client: Client, args: Record<string, unknown>) => client.callTool({ name: 'chat_with_agent', arguments: args }) as Promise<Result>;

describe('the follow-up may land on another process', () => {
  test('2026-07-28 (SDK): the call answers on one process with the reply so far; the other collects the whole reply; the upstream ran once', async () => {
    const [here, there] = await Promise.all(pair.urls.map(modernClient)) as [Client, Client];
    const message = slowMessage();
    const first = await chat(here, { message });
    expect(first.structuredContent).toMatchObject({ pending: true, handle: expect.any(String) });
    expect(echoOf(message).startsWith(first.structuredContent.reply)).toBe(true);

    let last = first;
    while (last.structuredContent?.pending) last = await chat(there, { session_id: first.structuredContent.session_id });
    expect(last.structuredContent).toEqual({ agent_id: 'default', session_id: first.structuredContent.session_id, reply: echoOf(message) });
    expect(await upstream.requestsFor(message)).toHaveLength(1);
  });

  test('2025-11-25: the same session collects by handle on the other process', async () => {
    const [here, there] = pair.urls as [string, string];
    const session = await openSession(here);
    const call = async (url: string, id: number, args: Record<string, unknown>) =>
      (await (await post(url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: args } }, session)).json()).result;
    const message = slowMessage();
    const first = await call(here, 1, { message });
    expect(first.structuredContent.pending).toBe(true);
    let last = first;
    for (let id = 2; last.structuredContent?.pending; id++) last = await call(there, id, { handle: first.structuredContent.handle });
    expect(last.structuredContent.reply).toBe(echoOf(message));
    expect(await upstream.requestsFor(message)).toHaveLength(1);
  });

  test('a stop sent to the other process aborts the upstream request where the run goes on', async () => {
    const [here, there] = await Promise.all(pair.urls.map(modernClient)) as [Client, Client];
    const message = `fault:hang ${crypto.randomUUID()}`;
    const first = await chat(here, { message });
    const stopped = await chat(there, { session_id: first.structuredContent.session_id, cancel: true });
    expect(stopped.isError).toBeFalsy();
    expect(JSON.stringify(stopped.content)).toContain('Cancelled: the agent was stopped');
    await upstream.waitFor((log) => log.some((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message));
  });
});

describe('a run whose process died', () => {
  test('is reported failed to the collecting call on the other process once its heartbeat stops', async () => {
    const doomed = await startInstances(2, env);
    try {
      const [dying, surviving] = await Promise.all(doomed.urls.map(modernClient)) as [Client, Client];
      const first = await chat(dying, { message: `fault:hang ${crypto.randomUUID()}` });
      expect(first.structuredContent.pending).toBe(true);
      await doomed.kill(0);
      let last = first;
      while (last.structuredContent?.pending) last = await chat(surviving, { session_id: first.structuredContent.session_id });
      expect(last.isError).toBe(true);
      expect(JSON.stringify(last.content)).toContain('stopped before it finished');
    } finally {
      await doomed.stop();
    }
  }, 30_000);
});
