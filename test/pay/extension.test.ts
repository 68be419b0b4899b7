/**
 * x402 as an MCP extension (x402 `specs/transports-v2/mcp.md` "Extension binding"), chosen per request: a 2026-07-28
 * request that declares `org.x402/payment` gets `resultType: "payment_required"` with `result.paymentRequired` before
 * anything runs, on tools/call, resources/read and prompts/get; it pays in `params._meta["x402/payment"]` and finds its
 * receipt in `result._meta["x402/payment-response"]`. Requests that do not declare it (and every 2025-era one) keep
 * the tool-result binding; a paid read or get answers them with a JSON-RPC error 402 carrying the PaymentRequired.
 *
 * Real HTTP on loopback, real EIP-3009 signatures from `@x402/core`'s client with `@x402/evm`'s exact scheme, and the
 * real facilitator logic over HTTP; only the chain is fake. No x402 MCP client speaks the extension binding (the
 * official MCP client 2.4 refuses an unknown `resultType`, and `@x402/mcp` is not on npm), so the paying client is
 * raw JSON-RPC, as the spec's examples are.
 */

import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PaymentRequired } from '@x402/core/types';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp, defaultDefinitions } from '../../lib/app.js';
import { definePrompt, defineResource, defineResourceTemplate, defineTool } from '../../lib/define/index.js';
import { PAYMENT_REQUIRED } from '../../lib/protocol/errors.js';
import { TASKS_EXTENSION } from '../../lib/protocol/tasks.js';
import { PAYMENT_RESPONSE_META_KEY, RESULT_TYPE_PAYMENT_REQUIRED, X402_EXTENSION } from '../../lib/pay/payload.js';
import { HELD_PROGRESS_MESSAGE } from '../../lib/server/context.js';
import { postModern, readSse } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';
import { createFakeChain, serveFacilitator, TEST_NETWORK, type FakeChain } from '../support/x402-chain.js';
import { createPayer } from '../support/x402-payer.js';

const PAY_TO = '0x2222222222222222222222222222222222222222';
const WITH_X402 = { extensions: { [X402_EXTENSION]: {} } };
let chain: FakeChain;
let facilitator: Awaited<ReturnType<typeof serveFacilitator>>;
let upstream: Upstream;
let server: TestServer;
let free: TestServer;

/** How often each paid entry's own code ran: what must stay 0 until a request is paid. */
const ran = { tool: 0, resource: 0, template: 0, prompt: 0 };

const additions = {
  tools: [defineTool({
    name: 'forecast', description: 'A paid forecast.', input: z.object({ city: z.string() }), price: '$0.02',
    run: ({ city }) => { ran.tool++; return `Sunny in ${city}.`; },
  })],
  resources: [defineResource({
    uri: 'report://today', name: 'today', description: 'Today\'s report.', mimeType: 'text/plain', price: '$0.03',
    read: () => { ran.resource++; return 'The paid report.'; },
  })],
  resourceTemplates: [defineResourceTemplate({
    uriTemplate: 'report://city/{city}', name: 'city-report', mimeType: 'text/plain', paid: true,
    read: (_uri, { city }) => { ran.template++; return `The report for ${city}.`; },
  })],
  prompts: [definePrompt({
    name: 'brief', description: 'A paid brief.', arguments: z.object({ topic: z.string() }), price: '$0.04',
    get: ({ topic }) => { ran.prompt++; return `Write a brief about ${topic}.`; },
  })],
};

beforeAll(async () => {
  chain = createFakeChain();
  [facilitator, upstream] = await Promise.all([serveFacilitator(chain.facilitator), startUpstream()]);
  const env = {
    X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitator.url, AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'test-model',
    // A call of a task-capable client becomes a task at once: payment_required must still come first.
    AGENT_TASK_AFTER_MS: '0', AGENT_REPLY_DEADLINE_MS: 'off',
  };
  const app = (definitions: ReturnType<typeof defaultDefinitions>) => createMcpHandler(createApp({
    definitions, origin: { local: true, allowedOrigins: new Set() }, stateSecret: 'x'.repeat(32),
  }));
  [server, free] = await Promise.all([
    startTestServer(app(defaultDefinitions(env, additions))),
    startTestServer(app(defaultDefinitions({ AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'test-model' }))),
  ]);
}, 30_000);
afterAll(async () => {
  await Promise.all([server?.close(), free?.close(), facilitator?.close()]);
  upstream?.stop();
});

let ids = 0;
/** One 2026-07-28 request; its JSON-RPC response (the last message, when the reply is a stream). */
async function modern(method: string, params: Record<string, unknown>, options: { capabilities?: Record<string, unknown>; meta?: Record<string, unknown>; url?: string } = {}): Promise<any> {
  const response = await postModern(options.url ?? server.mcpUrl, `x${++ids}`, method, params, { capabilities: options.capabilities ?? WITH_X402, meta: options.meta });
  if (response.headers.get('content-type')?.includes('text/event-stream')) return (await readSse(response).rest()).at(-1);
  return response.json();
}

const paying = (payment: unknown) => ({ 'x402/payment': payment });
const transfersOf = (address: string) => chain.transfers.filter((t) => t.from.toLowerCase() === address.toLowerCase());

describe('server/discover', () => {
  test('advertises org.x402/payment in capabilities.extensions when something is paid', async () => {
    const { result } = await modern('server/discover', {});
    expect(result.capabilities.extensions).toMatchObject({ [X402_EXTENSION]: {} });
  });

  test('does not advertise it when nothing is paid', async () => {
    const { result } = await modern('server/discover', {}, { url: free.mcpUrl });
    expect(result.capabilities.extensions?.[X402_EXTENSION]).toBeUndefined();
  });
});

describe('a request that declares org.x402/payment', () => {
  test('an unpaid tools/call gets payment_required with the PaymentRequired, and the agent is never asked', async () => {
    const message = `unpaid ${crypto.randomUUID()}`;
    const reply = await modern('tools/call', { name: 'chat_with_agent', arguments: { message } });
    expect(reply.error).toBeUndefined();
    expect(reply.result).toMatchObject({
      resultType: RESULT_TYPE_PAYMENT_REQUIRED,
      paymentRequired: {
        x402Version: 2,
        error: expect.stringContaining('Payment required'),
        resource: { url: 'mcp://tool/chat_with_agent' },
        accepts: [expect.objectContaining({ scheme: 'exact', network: TEST_NETWORK, amount: '10000', payTo: PAY_TO })],
      },
    });
    expect(reply.result.content).toBeUndefined();
    expect(reply.result.isError).toBeUndefined();
    expect(await upstream.requestsFor(message)).toHaveLength(0);
  });

  test('pays a tool: the paid retry runs once, carries the receipt, and a replay is answered from the record', async () => {
    const before = ran.tool;
    const unpaid = await modern('tools/call', { name: 'forecast', arguments: { city: 'Oslo' } });
    expect(unpaid.result.resultType).toBe(RESULT_TYPE_PAYMENT_REQUIRED);
    expect(unpaid.result.paymentRequired.accepts[0].amount).toBe('20000');
    expect(ran.tool).toBe(before);
    const payer = createPayer();
    const payment = await payer.pay(unpaid.result.paymentRequired);
    const paid = await modern('tools/call', { name: 'forecast', arguments: { city: 'Oslo' } }, { meta: paying(payment) });
    expect(paid.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Sunny in Oslo.' }] });
    expect(paid.result._meta[PAYMENT_RESPONSE_META_KEY]).toMatchObject({ success: true, payer: payer.address, network: TEST_NETWORK });
    expect(ran.tool).toBe(before + 1);
    const again = await modern('tools/call', { name: 'forecast', arguments: { city: 'Oslo' } }, { meta: paying(payment) });
    expect(again.result.content).toEqual(paid.result.content);
    expect(again.result._meta[PAYMENT_RESPONSE_META_KEY]).toEqual(paid.result._meta[PAYMENT_RESPONSE_META_KEY]);
    expect(ran.tool).toBe(before + 1);
    expect(transfersOf(payer.address)).toHaveLength(1);
  });

  test('pays the agent tool: the reply comes with the receipt, after one upstream request', async () => {
    const message = `paid ${crypto.randomUUID()}`;
    const unpaid = await modern('tools/call', { name: 'chat_with_agent', arguments: { message } });
    const payer = createPayer();
    const paid = await modern('tools/call', { name: 'chat_with_agent', arguments: { message } }, { meta: paying(await payer.pay(unpaid.result.paymentRequired)) });
    expect(paid.result.resultType).toBe('complete');
    expect(paid.result.structuredContent.reply).toContain(message);
    expect(paid.result._meta[PAYMENT_RESPONSE_META_KEY]).toMatchObject({ success: true, payer: payer.address });
    expect(await upstream.requestsFor(message)).toHaveLength(1);
  });

  test('pays a resource read: contents with the receipt, cacheable by nobody else; a replay settles nothing more', async () => {
    const before = ran.resource;
    const unpaid = await modern('resources/read', { uri: 'report://today' });
    expect(unpaid.result).toMatchObject({
      resultType: RESULT_TYPE_PAYMENT_REQUIRED,
      paymentRequired: { x402Version: 2, resource: { url: 'report://today' }, accepts: [expect.objectContaining({ amount: '30000' })] },
    });
    expect(unpaid.result.contents).toBeUndefined();
    expect(ran.resource).toBe(before);
    const payer = createPayer();
    const payment = await payer.pay(unpaid.result.paymentRequired);
    const paid = await modern('resources/read', { uri: 'report://today' }, { meta: paying(payment) });
    expect(paid.result).toMatchObject({
      resultType: 'complete', contents: [{ uri: 'report://today', text: 'The paid report.' }], ttlMs: 0, cacheScope: 'private',
    });
    expect(paid.result._meta[PAYMENT_RESPONSE_META_KEY]).toMatchObject({ success: true, payer: payer.address });
    const again = await modern('resources/read', { uri: 'report://today' }, { meta: paying(payment) });
    expect(again.result.contents).toEqual(paid.result.contents);
    expect(ran.resource).toBe(before + 1);
    expect(transfersOf(payer.address)).toHaveLength(1);
  });

  test('a payment for one resource does not pay for another URI of a paid template', async () => {
    const unpaid = await modern('resources/read', { uri: 'report://city/Oslo' });
    expect(unpaid.result.resultType).toBe(RESULT_TYPE_PAYMENT_REQUIRED);
    const payer = createPayer();
    const payment = await payer.pay(unpaid.result.paymentRequired);
    const oslo = await modern('resources/read', { uri: 'report://city/Oslo' }, { meta: paying(payment) });
    expect(oslo.result.contents).toEqual([{ uri: 'report://city/Oslo', mimeType: 'text/plain', text: 'The report for Oslo.' }]);
    const before = ran.template;
    const bergen = await modern('resources/read', { uri: 'report://city/Bergen' }, { meta: paying(payment) });
    expect(bergen.result).toMatchObject({ resultType: RESULT_TYPE_PAYMENT_REQUIRED, paymentRequired: { error: expect.stringContaining('payment_already_used') } });
    expect(ran.template).toBe(before);
    expect(transfersOf(payer.address)).toHaveLength(1);
  });

  test('pays a prompts/get: the messages with the receipt', async () => {
    const before = ran.prompt;
    const unpaid = await modern('prompts/get', { name: 'brief', arguments: { topic: 'tides' } });
    expect(unpaid.result).toMatchObject({
      resultType: RESULT_TYPE_PAYMENT_REQUIRED,
      paymentRequired: { resource: { url: 'mcp://prompt/brief' }, accepts: [expect.objectContaining({ amount: '40000' })] },
    });
    expect(unpaid.result.messages).toBeUndefined();
    expect(ran.prompt).toBe(before);
    const payer = createPayer();
    const paid = await modern('prompts/get', { name: 'brief', arguments: { topic: 'tides' } }, { meta: paying(await payer.pay(unpaid.result.paymentRequired)) });
    expect(paid.result).toMatchObject({ resultType: 'complete', messages: [{ role: 'user', content: { type: 'text', text: 'Write a brief about tides.' } }] });
    expect(paid.result._meta[PAYMENT_RESPONSE_META_KEY]).toMatchObject({ success: true, payer: payer.address });
    expect(ran.prompt).toBe(before + 1);
  });

  test('a payment that fails verification gets payment_required with the reason, and nothing runs', async () => {
    const unpaid = await modern('tools/call', { name: 'forecast', arguments: { city: 'Rome' } });
    const [accepted] = (unpaid.result.paymentRequired as PaymentRequired).accepts;
    const payer = createPayer();
    const wrong = await payer.sign(accepted!, { to: '0x3333333333333333333333333333333333333333' });
    const before = ran.tool;
    const refused = await modern('tools/call', { name: 'forecast', arguments: { city: 'Rome' } }, { meta: paying(wrong) });
    expect(refused.result).toMatchObject({ resultType: RESULT_TYPE_PAYMENT_REQUIRED, paymentRequired: { error: expect.stringMatching(/recipient/) } });
    expect(ran.tool).toBe(before);
  });

  test('when settlement fails the content is withheld: payment_required with the failed receipt', async () => {
    const unpaid = await modern('prompts/get', { name: 'brief', arguments: { topic: 'storms' } });
    const payment = await createPayer().pay(unpaid.result.paymentRequired);
    chain.revertSettlements(true);
    try {
      const failed = await modern('prompts/get', { name: 'brief', arguments: { topic: 'storms' } }, { meta: paying(payment) });
      expect(failed.result).toMatchObject({
        resultType: RESULT_TYPE_PAYMENT_REQUIRED,
        paymentRequired: { error: expect.stringContaining('Payment settlement failed') },
        _meta: { [PAYMENT_RESPONSE_META_KEY]: { success: false } },
      });
      expect(JSON.stringify(failed)).not.toContain('storms.');
    } finally {
      chain.revertSettlements(false);
    }
  });

  test('with the tasks extension too, an unpaid call of a tool that becomes a task at once gets payment_required, not a task', async () => {
    const message = `task ${crypto.randomUUID()}`;
    const reply = await modern('tools/call', { name: 'chat_with_agent', arguments: { message } }, { capabilities: { extensions: { [X402_EXTENSION]: {}, [TASKS_EXTENSION]: {} } } });
    expect(reply.result.resultType).toBe(RESULT_TYPE_PAYMENT_REQUIRED);
    expect(await upstream.requestsFor(message)).toHaveLength(0);
  });

  test('a paid call streams status-only progress: nothing of the reply before the receipt', async () => {
    const message = `fault:slow ${crypto.randomUUID()}`;
    const unpaid = await modern('tools/call', { name: 'chat_with_agent', arguments: { message } });
    const payment = await createPayer().pay(unpaid.result.paymentRequired);
    const response = await postModern(server.mcpUrl, `x${++ids}`, 'tools/call', { name: 'chat_with_agent', arguments: { message } },
      { capabilities: WITH_X402, meta: { progressToken: 'p', ...paying(payment) } });
    const seen = response.headers.get('content-type')?.includes('text/event-stream') ? await readSse(response).rest() : [await response.json()];
    const before = seen.slice(0, -1);
    expect(before.filter((m) => m.method === 'notifications/progress').length).toBeGreaterThan(0);
    expect(before.every((m) => m.method !== 'notifications/progress' || m.params.message === undefined || m.params.message === HELD_PROGRESS_MESSAGE)).toBe(true);
    expect(JSON.stringify(before)).not.toContain('Echo:');
    expect(seen.at(-1).result._meta[PAYMENT_RESPONSE_META_KEY]).toMatchObject({ success: true });
  });
});

describe('on the same server, a request that does not declare org.x402/payment', () => {
  test('2026-07-28: a paid tool answers with the tool-result binding, and the payment is taken as before', async () => {
    const unpaid = await modern('tools/call', { name: 'forecast', arguments: { city: 'Lima' } }, { capabilities: {} });
    expect(unpaid.result).toMatchObject({ resultType: 'complete', isError: true, structuredContent: { x402Version: 2, accepts: [expect.objectContaining({ amount: '20000' })] } });
    expect(JSON.parse(unpaid.result.content[0].text)).toEqual(unpaid.result.structuredContent);
    const payer = createPayer();
    const paid = await modern('tools/call', { name: 'forecast', arguments: { city: 'Lima' } }, { capabilities: {}, meta: paying(await payer.pay(unpaid.result.structuredContent)) });
    expect(paid.result).toMatchObject({ resultType: 'complete', content: [{ text: 'Sunny in Lima.' }], _meta: { [PAYMENT_RESPONSE_META_KEY]: { success: true } } });
  });

  test('2026-07-28: a paid resource read or prompt get is a JSON-RPC error 402 with the PaymentRequired in data', async () => {
    const before = { ...ran };
    const read = await modern('resources/read', { uri: 'report://today' }, { capabilities: {} });
    expect(read.error).toMatchObject({ code: PAYMENT_REQUIRED, data: { x402Version: 2, resource: { url: 'report://today' }, accepts: [expect.anything()] } });
    const got = await modern('prompts/get', { name: 'brief', arguments: { topic: 'x' } }, { capabilities: {} });
    expect(got.error).toMatchObject({ code: PAYMENT_REQUIRED, data: { accepts: [expect.objectContaining({ amount: '40000' })] } });
    expect(ran).toEqual(before);
    const payer = createPayer();
    const paid = await modern('resources/read', { uri: 'report://today' }, { capabilities: {}, meta: paying(await payer.pay(read.error.data)) });
    expect(paid.result).toMatchObject({ contents: [{ text: 'The paid report.' }], _meta: { [PAYMENT_RESPONSE_META_KEY]: { success: true } } });
  });

  test('2025-11-25 (the official v1 SDK client): the tool-result binding for tools, error 402 for reads, and both pay', async () => {
    const client = new ClientV1({ name: 'x402-legacy', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(server.mcpUrl)));
    try {
      const unpaid = await client.callTool({ name: 'forecast', arguments: { city: 'Quito' } });
      expect(unpaid).toMatchObject({ isError: true, structuredContent: { x402Version: 2 } });
      expect((unpaid as Record<string, unknown>).resultType).toBeUndefined();
      const payer = createPayer();
      const paid = await client.callTool({ name: 'forecast', arguments: { city: 'Quito' }, _meta: paying(await payer.pay(unpaid.structuredContent as never)) });
      expect(paid).toMatchObject({ content: [{ text: 'Sunny in Quito.' }], _meta: { [PAYMENT_RESPONSE_META_KEY]: { success: true } } });
      const refused = await client.readResource({ uri: 'report://city/Lima' }).then(() => undefined, (error: unknown) => error as { code: number; data: PaymentRequired });
      expect(refused).toMatchObject({ code: PAYMENT_REQUIRED, data: { x402Version: 2, resource: { url: 'report://city/Lima' } } });
      const read = await client.readResource({ uri: 'report://city/Lima', _meta: paying(await payer.pay(refused!.data)) });
      expect(read.contents).toEqual([{ uri: 'report://city/Lima', mimeType: 'text/plain', text: 'The report for Lima.' }]);
      expect(read._meta?.[PAYMENT_RESPONSE_META_KEY]).toMatchObject({ success: true });
      const listed = await client.listPrompts();
      expect(listed.prompts.find((p) => p.name === 'brief')?._meta?.['x402/price']).toMatchObject({ price: '$0.04', payTo: PAY_TO });
    } finally {
      await client.close();
    }
  });
});
