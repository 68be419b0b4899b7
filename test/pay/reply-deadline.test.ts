/**
 * A paid chat call that outlives its reply deadline (issue 28; docs/agents.md "Slow agents"): the payment pays for the
 * run, not for each collection. It is verified before the run starts and settled once, when the run has answered; the
 * calls that collect it pay nothing, and the whole reply comes with the receipt. Nothing of the reply shows before that
 * (docs/architecture.md rule 15, issue 42 item 2): not in the answer at the deadline, not in a collection, and a run
 * cancelled before its end settles nothing. Real signatures and facilitator logic behind a fake chain, the official SDK
 * clients on both wires, a scripted slow upstream that writes its reply in 8-character pieces.
 */

import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp, defaultDefinitions } from '../../lib/app.js';
import { connectHttp, createV2Client, type Era } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';
import { createFakeChain, serveFacilitator, type FakeChain } from '../support/x402-chain.js';
import { createPayer } from '../support/x402-payer.js';

const PAY_TO = '0x2222222222222222222222222222222222222222';
let chain: FakeChain;
let facilitator: Awaited<ReturnType<typeof serveFacilitator>>;
let upstream: Upstream;
let server: TestServer;
let client: Client;

beforeAll(async () => {
  chain = createFakeChain();
  [facilitator, upstream] = await Promise.all([serveFacilitator(chain.facilitator), startUpstream()]);
  server = await startTestServer(createMcpHandler(createApp({
    definitions: defaultDefinitions({
      X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitator.url,
      AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'test-model', AGENT_REPLY_DEADLINE_MS: '600',
    }),
    origin: { local: true, allowedOrigins: new Set() },
    stateSecret: 'x'.repeat(32),
  })));
  client = createV2Client('legacy');
  await connectHttp(client, server.mcpUrl);
}, 30_000);
afterAll(async () => {
  await client?.close();
  await server?.close();
  await facilitator?.close();
  upstream?.stop();
});

type Result = { isError?: boolean; structuredContent?: any; _meta?: Record<string, any> };
const chat = (args: Record<string, unknown>, meta?: Record<string, unknown>) =>
  client.callTool({ name: 'chat_with_agent', arguments: args, ...(meta ? { _meta: meta } : {}) }) as Promise<Result>;
const settlements = () => facilitator.calls.filter((path) => path.endsWith('/settle')).length;

describe('a paid call past its reply deadline', () => {
  test('is paid once for its run: settled when the run answered, the collections free, the receipt with the whole reply', async () => {
    const message = `fault:pace 100 ${crypto.randomUUID()} tell me more about it`;
    const unpaid = await chat({ message });
    expect(unpaid.isError).toBe(true);
    const payment = await createPayer().pay(unpaid.structuredContent);
    const before = settlements();

    const first = await chat({ message }, { 'x402/payment': payment });
    expect(first.structuredContent).toMatchObject({ pending: true, handle: expect.any(String) });
    expect(first._meta?.['x402/payment-response']).toBeUndefined();

    let last = first;
    // No payment on the collecting calls.
    while (last.structuredContent?.pending) last = await chat({ session_id: first.structuredContent.session_id });
    expect(last.structuredContent.reply).toBe(`Echo: ${message} (history 0)`);
    expect(last._meta?.['x402/payment-response']).toMatchObject({ success: true });
    const again = await chat({ session_id: first.structuredContent.session_id });
    expect(again._meta?.['x402/payment-response']).toEqual(last._meta?.['x402/payment-response']);

    expect(settlements() - before).toBe(1);
    expect(await upstream.requestsFor(message)).toHaveLength(1);
  });
});

/** Every reply of the scripted upstream begins "Echo: " and repeats the message, whose marker is unique. */
const carriesReply = (result: Result, marker: string) => {
  const said = JSON.stringify([(result as { content?: unknown }).content, result.structuredContent]);
  return said.includes(marker) || said.includes('Echo:');
};

describe.each(['legacy', 'modern'] as const)('on the %s wire, a paid call past its reply deadline', (era: Era) => {
  let caller: Client;
  beforeAll(async () => {
    caller = createV2Client(era);
    await connectHttp(caller, server.mcpUrl);
  });
  afterAll(() => caller?.close());
  const call = (args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    caller.callTool({ name: 'chat_with_agent', arguments: args, ...(meta ? { _meta: meta } : {}) }) as Promise<Result>;
  const paymentFor = async (message: string) => createPayer().pay((await call({ message })).structuredContent);

  test('shows none of the reply at the deadline or in a collection before the run ends, then the whole reply with the receipt', async () => {
    const marker = crypto.randomUUID();
    const message = `fault:pace 100 ${marker} tell me more about it`;
    const payment = await paymentFor(message);
    const first = await call({ message }, { 'x402/payment': payment });
    expect(first.structuredContent).toMatchObject({ pending: true, reply: '' });
    const answers = [first];
    let last = first;
    while (last.structuredContent?.pending) answers.push(last = await call({ session_id: first.structuredContent.session_id }));
    expect(answers.slice(0, -1).filter((answer) => carriesReply(answer, marker))).toEqual([]);
    expect(last.structuredContent.reply).toBe(`Echo: ${message} (history 0)`);
    expect(last._meta?.['x402/payment-response']).toMatchObject({ success: true });
  });

  test('cancelled after the deadline: no reply text reached the caller and nothing was settled; the payment still buys the reply', async () => {
    const marker = crypto.randomUUID();
    const message = `fault:pace 200 ${marker} tell me more about it`;
    const payment = await paymentFor(message);
    const before = settlements();
    const first = await call({ message }, { 'x402/payment': payment });
    expect(first.structuredContent).toMatchObject({ pending: true });
    const stopped = await call({ session_id: first.structuredContent.session_id, cancel: true });
    // A cancel that stopped the run is a success, and says so without any of the reply.
    expect(stopped.isError).toBeFalsy();
    expect(stopped.structuredContent).toMatchObject({ reply: '' });
    expect([first, stopped].filter((answer) => carriesReply(answer, marker))).toEqual([]);
    await upstream.waitFor((log) => log.some((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message));

    // The same payment again waits until the cancelled run let it go. Had that run settled, this would be its replay;
    // it did not, so the payment pays for this run, and is settled once.
    let last = await call({ message }, { 'x402/payment': payment });
    while (last.structuredContent?.pending) last = await call({ session_id: last.structuredContent.session_id });
    expect(last.structuredContent.reply).toBe(`Echo: ${message} (history 0)`);
    expect(last._meta?.['x402/payment-response']).toMatchObject({ success: true });
    expect(settlements() - before).toBe(1);
    expect(await upstream.requestsFor(message)).toHaveLength(2);
  });

  test('when settlement fails at the run\'s end, the collection gets the PaymentRequired and nothing of the reply was ever shown', async () => {
    const marker = crypto.randomUUID();
    const message = `fault:pace 100 ${marker} tell me more about it`;
    const payment = await paymentFor(message);
    const transfers = chain.transfers.length;
    chain.revertSettlements(true);
    const answers: Result[] = [];
    try {
      let last = await call({ message }, { 'x402/payment': payment });
      answers.push(last);
      while (last.structuredContent?.pending) answers.push(last = await call({ session_id: answers[0]!.structuredContent.session_id }));
    } finally {
      chain.revertSettlements(false);
    }
    expect(answers.length).toBeGreaterThan(1);
    const end = answers.at(-1)!;
    expect(end.isError).toBe(true);
    expect(end.structuredContent.error).toMatch(/^Payment settlement failed/);
    expect(answers.filter((answer) => carriesReply(answer, marker))).toEqual([]);
    expect(chain.transfers.length).toBe(transfers);
  });
});
