/**
 * A paid chat call that becomes a task (docs/tasks.md): nothing of the reply leaves before it is paid
 * (docs/architecture.md rule 15). On the 2026-07-28 wire the call streams progress until it becomes a task, and the
 * task's result is what the paid call answers, after settlement; on the 2025-11-25 wire (the official v1 SDK client's
 * task API) the task's status and result are read the same way. Real signatures and facilitator logic behind a fake
 * chain, reached over HTTP; a scripted upstream that writes its reply slowly.
 */

import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp, defaultDefinitions } from '../../lib/app.js';
import { TASKS_EXTENSION } from '../../lib/protocol/tasks.js';
import { HELD_PROGRESS_MESSAGE } from '../../lib/server/context.js';
import { postModern, readSse } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';
import { connectV1 } from '../support/v1-tasks.js';
import { createFakeChain, serveFacilitator, type FakeChain } from '../support/x402-chain.js';
import { createPayer } from '../support/x402-payer.js';

const PAY_TO = '0x2222222222222222222222222222222222222222';
const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
let chain: FakeChain;
let facilitator: Awaited<ReturnType<typeof serveFacilitator>>;
let upstream: Upstream;
let server: TestServer;

beforeAll(async () => {
  chain = createFakeChain();
  [facilitator, upstream] = await Promise.all([serveFacilitator(chain.facilitator), startUpstream()]);
  server = await startTestServer(createMcpHandler(createApp({
    definitions: defaultDefinitions({
      X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitator.url, AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'test-model',
      AGENT_TASK_AFTER_MS: '300', AGENT_REPLY_DEADLINE_MS: 'off',
    }),
    origin: { local: true, allowedOrigins: new Set() },
    stateSecret: 'x'.repeat(32),
  })));
}, 30_000);
afterAll(async () => {
  await server?.close();
  await facilitator?.close();
  upstream?.stop();
});

/** Every reply the scripted upstream writes begins "Echo: " and repeats the message, whose marker is unique. */
const carriesReply = (value: unknown, marker: string) => {
  const said = JSON.stringify(value);
  return said.includes(marker) || said.includes('Echo:');
};

let ids = 0;
/** Every message of a 2026-07-28 call's response, in order (one JSON body, or an SSE stream). */
async function modern(method: string, params: Record<string, unknown>, meta: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<any[]> {
  const response = await postModern(server.mcpUrl, `t${++ids}`, method, params, { capabilities: WITH_TASKS, meta, headers });
  if (response.headers.get('content-type')?.includes('text/event-stream')) return readSse(response).rest();
  return [await response.json()];
}

describe('on the 2026-07-28 wire, a paid call that becomes a task', () => {
  async function run(message: string): Promise<{ seen: any[]; end: any }> {
    const [unpaid] = await modern('tools/call', { name: 'chat_with_agent', arguments: { message } });
    const payment = await createPayer().pay(unpaid.result.structuredContent);
    const seen = await modern('tools/call', { name: 'chat_with_agent', arguments: { message } }, { progressToken: 'p1', 'x402/payment': payment });
    const created = seen.at(-1).result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    for (;;) {
      const [got] = await modern('tasks/get', { taskId: created.taskId }, {}, { 'mcp-name': created.taskId });
      seen.push(got);
      if (got.result.status !== 'working') return { seen, end: got.result };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  test('streams status-only progress before it is a task, and its result is the whole reply with the receipt', async () => {
    const message = `fault:slow ${crypto.randomUUID()} long enough to outlast the three hundred milliseconds`;
    const { seen, end } = await run(message);
    const progress = seen.filter((m) => m.method === 'notifications/progress').map((m) => m.params.message);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((text) => text === HELD_PROGRESS_MESSAGE)).toBe(true);
    expect(end).toMatchObject({ status: 'completed', result: { structuredContent: { reply: `Echo: ${message} (history 0)` } } });
    expect(end.result._meta['x402/payment-response']).toMatchObject({ success: true });
  });

  test('when settlement fails, its result is the PaymentRequired, and nothing of the reply was ever out', async () => {
    const marker = crypto.randomUUID();
    const message = `fault:slow ${marker} long enough to outlast the three hundred milliseconds`;
    const transfers = chain.transfers.length;
    chain.revertSettlements(true);
    let outcome: Awaited<ReturnType<typeof run>>;
    try {
      outcome = await run(message);
    } finally {
      chain.revertSettlements(false);
    }
    expect(outcome.end).toMatchObject({ status: 'completed', result: { isError: true, structuredContent: { error: expect.stringMatching(/^Payment settlement failed/) } } });
    expect(outcome.seen.filter((m) => carriesReply(m, marker))).toEqual([]);
    expect(chain.transfers.length).toBe(transfers);
    expect(await upstream.requestsFor(message)).toHaveLength(1);
  });
});

describe('on the 2025-11-25 wire (the v1 SDK client\'s tasks), a paid task', () => {
  let client: ClientV1;
  beforeAll(async () => {
    client = await connectV1(server.mcpUrl);
  });
  afterAll(() => client?.close());

  test('whose settlement fails says nothing of the reply in its status or its result', async () => {
    const marker = crypto.randomUUID();
    const message = `fault:slow ${marker}`;
    const unpaid = await client.callTool({ name: 'chat_with_agent', arguments: { message } });
    const payment = await createPayer().pay(unpaid.structuredContent as never);
    const seen: unknown[] = [];
    chain.revertSettlements(true);
    try {
      const stream = client.experimental.tasks.callToolStream(
        { name: 'chat_with_agent', arguments: { message }, _meta: { 'x402/payment': payment } }, CallToolResultSchema, { task: { ttl: 60_000 } });
      for await (const step of stream) seen.push(step);
    } finally {
      chain.revertSettlements(false);
    }
    const end = seen.at(-1) as { type: string; result: any };
    expect(end.type).toBe('result');
    expect(end.result).toMatchObject({ isError: true, structuredContent: { error: expect.stringMatching(/^Payment settlement failed/) } });
    expect(seen.filter((step) => carriesReply(step, marker))).toEqual([]);
    expect(await upstream.requestsFor(message)).toHaveLength(1);
  });
});
