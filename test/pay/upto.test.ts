/**
 * Charging by use (docs/payments.md "Charging by use (upto)"; issue 45 item 4): x402 `upto` beside `exact`. The payer signs a
 * ceiling (a real Permit2 signature by @x402/evm's upto client), the call runs, and the settlement is the price of the
 * tokens the call's meter counted, never above the ceiling. The real @x402/evm facilitator logic verifies and settles
 * behind a fake chain that checks every upto settlement against the signed ceiling (test/support/x402-chain.ts),
 * reached over HTTP by the production client; calls go through the real MCP endpoint on loopback.
 */

import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import * as z from 'zod';
import { createMcpHandler } from '../../api/mcp.js';
import type { AgentTurn } from '../../lib/agent/types.js';
import { createApp, defaultDefinitions } from '../../lib/app.js';
import { defineTool } from '../../lib/define/tool.js';
import { additionDefinitions } from '../../lib/define/additions.js';
import { readPayConfig } from '../../lib/pay/config.js';
import { createPaymentEngine } from '../../lib/pay/engine.js';
import { PAYMENT_RESPONSE_META_KEY } from '../../lib/pay/payload.js';
import { CHARGED_META_KEY, PRICE_META_KEY, withPayment } from '../../lib/pay/with-payment.js';
import type { ToolDefinition } from '../../lib/server/registry.js';
import { MemoryStore } from '../../lib/store/memory.js';
import { post } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createFakeChain, serveFacilitator, TEST_NETWORK, type FakeChain } from '../support/x402-chain.js';
import { createPayer } from '../support/x402-payer.js';

const PAY_TO = '0x3333333333333333333333333333333333333333';
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
/** $3 and $15 per million input and output tokens, at most $0.50 a call: USDC has 6 decimals, so 500000 units. */
const TOKEN_PRICES = { X402_PRICE_INPUT: '$3', X402_PRICE_OUTPUT: '$15', X402_MAX_PRICE: '$0.50' };
const CEILING = 500_000n;

let chain: FakeChain;
let facilitator: Awaited<ReturnType<typeof serveFacilitator>>;
let server: TestServer;
let engine: ReturnType<typeof createPaymentEngine>;
const BY_USE = { price: '$0.01', tokens: { input: '$3', output: '$15', max: '$0.50' } } as const;

/** An in-process agent that reports one model request's usage into the call's meter, as its upstream said it. */
async function* meteredAgent(turn: AgentTurn): AsyncIterable<string> {
  turn.usage?.record({ input: 1200, output: 800 });
  yield `You said: ${turn.message}`;
}

/** A paid tool charged by use whose calls say what their model requests spent (`undefined`: nothing known). */
const metered: ToolDefinition<z.ZodObject<{ reports: z.ZodArray<z.ZodNullable<z.ZodObject<{ input: z.ZodNumber; output: z.ZodNumber }>>> }>> = {
  name: 'metered',
  description: 'Reports the given usage.',
  input: z.object({ reports: z.array(z.object({ input: z.number(), output: z.number() }).nullable()) }),
  run({ reports }, ctx) {
    for (const report of reports) ctx.usage.record(report ?? undefined);
    return { content: [{ type: 'text', text: `made ${reports.length} model requests` }] };
  },
};

const priced = defineTool({
  name: 'priced',
  description: 'A tool with its own price.',
  input: z.object({}),
  price: '$0.05',
  run: () => 'priced answer',
});

beforeAll(async () => {
  chain = createFakeChain();
  facilitator = await serveFacilitator(chain.facilitator);
  const env = { X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitator.url, ...TOKEN_PRICES };
  engine = createPaymentEngine(readPayConfig(env)!);
  const agents = [{ id: 'metered', name: 'Metered', description: 'Reports its usage.', reply: meteredAgent }];
  server = await startTestServer(createMcpHandler(createApp({
    definitions: [
      ...defaultDefinitions(env, { agents }),
      { tools: [withPayment(metered, engine, BY_USE)] },
      additionDefinitions({ tools: [priced] }, engine),
    ],
    origin: { local: true, allowedOrigins: new Set() },
    stateSecret: 'x'.repeat(32),
  })));
});

afterAll(async () => {
  await server?.close();
  await facilitator?.close();
});

async function callTool(name: string, args: Record<string, unknown>, payment?: PaymentPayload, url = server.mcpUrl) {
  const response = await post(url, {
    jsonrpc: '2.0', id: crypto.randomUUID(), method: 'tools/call',
    params: { name, arguments: args, ...(payment ? { _meta: { 'x402/payment': payment } } : {}) },
  }, LEGACY);
  return (await response.json()).result;
}

const requiredFor = async (name: string, args: Record<string, unknown>): Promise<PaymentRequired> =>
  (await callTool(name, args)).structuredContent;

const transfersTo = (hash: string) => chain.transfers.filter((t) => t.hash === hash);

describe('x402 upto: a call charged by the tokens it used', () => {
  test('accepts offers exact at X402_PRICE and upto with X402_MAX_PRICE as its amount; tools/list says both', async () => {
    const required = await requiredFor('chat_with_agent', { message: 'hi' });
    const schemes = required.accepts.map((r) => [r.scheme, r.amount]);
    expect(schemes).toEqual([['exact', '10000'], ['upto', CEILING.toString()]]);
    const list = await (await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, LEGACY)).json();
    const chat = list.result.tools.find((t: { name: string }) => t.name === 'chat_with_agent');
    expect(chat._meta[PRICE_META_KEY]).toEqual({
      scheme: 'exact', price: '$0.01', network: TEST_NETWORK, payTo: PAY_TO,
      upto: { perMillionTokens: { input: '$3', output: '$15' }, max: '$0.50' },
    });
  });

  test('an upto call settles the price of the tokens the agent reported, less than its ceiling', async () => {
    const payer = createPayer();
    const args = { message: 'what does this cost?' };
    const payment = await payer.payUpto(await requiredFor('chat_with_agent', args));
    expect(payment.accepted.scheme).toBe('upto');
    const result = await callTool('chat_with_agent', args, payment);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.reply).toBe('You said: what does this cost?');
    // 1200 input tokens at $3/M and 800 output tokens at $15/M: $0.0036 + $0.012 = $0.0156, 15600 units of USDC.
    expect(result._meta[CHARGED_META_KEY]).toEqual({ scheme: 'upto', amount: '15600', price: '$0.0156', basis: 'usage', ceiling: '500000' });
    const receipt = result._meta[PAYMENT_RESPONSE_META_KEY];
    expect(receipt).toMatchObject({ success: true, amount: '15600', payer: payer.address });
    expect(transfersTo(receipt.transaction)).toEqual([expect.objectContaining({ value: 15600n, ceiling: CEILING, to: PAY_TO })]);
  });

  test('the same payment sent again gets the first result and is not settled twice', async () => {
    const payer = createPayer();
    const args = { reports: [{ input: 10, output: 10 }] };
    const payment = await payer.payUpto(await requiredFor('metered', args));
    const first = await callTool('metered', args, payment);
    const settled = chain.transfers.length;
    const again = await callTool('metered', args, payment);
    expect(again).toEqual(first);
    expect(chain.transfers.length).toBe(settled);
  });

  test('a call that made no model request settles nothing: its authorization never reaches the chain', async () => {
    const payer = createPayer();
    const args = { reports: [] };
    const before = chain.transfers.length;
    const payment = await payer.payUpto(await requiredFor('metered', args));
    const settles = facilitator.calls.filter((path) => path === '/settle').length;
    const result = await callTool('metered', args, payment);
    expect(facilitator.calls.filter((path) => path === '/settle').length).toBe(settles);
    expect(result.isError).toBeFalsy();
    expect(result._meta[CHARGED_META_KEY]).toMatchObject({ scheme: 'upto', amount: '0', price: '$0', basis: 'nothing-used' });
    expect(result._meta[PAYMENT_RESPONSE_META_KEY]).toMatchObject({ success: true, transaction: '', amount: '0' });
    expect(chain.transfers.length).toBe(before);
  });

  test('usage past the ceiling settles the ceiling, no more', async () => {
    const payer = createPayer();
    const args = { reports: [{ input: 100_000_000, output: 100_000_000 }] };
    const result = await callTool('metered', args, await payer.payUpto(await requiredFor('metered', args)));
    expect(result._meta[CHARGED_META_KEY]).toMatchObject({ amount: CEILING.toString(), price: '$0.5', basis: 'usage' });
    expect(transfersTo(result._meta[PAYMENT_RESPONSE_META_KEY].transaction)).toEqual([expect.objectContaining({ value: CEILING, ceiling: CEILING })]);
  });

  test('a model request whose usage is unknown settles the ceiling, and says so', async () => {
    const payer = createPayer();
    const args = { reports: [{ input: 5, output: 5 }, null] };
    const result = await callTool('metered', args, await payer.payUpto(await requiredFor('metered', args)));
    expect(result._meta[CHARGED_META_KEY]).toMatchObject({ amount: CEILING.toString(), basis: 'ceiling-usage-unknown' });
    expect(transfersTo(result._meta[PAYMENT_RESPONSE_META_KEY].transaction)).toEqual([expect.objectContaining({ value: CEILING })]);
  });

  test('exact still works on the same tool: the fixed price, whatever the usage', async () => {
    const payer = createPayer();
    const args = { reports: [{ input: 1, output: 1 }] };
    const payment = await payer.pay(await requiredFor('metered', args));
    expect(payment.accepted.scheme).toBe('exact');
    const result = await callTool('metered', args, payment);
    expect(result._meta[CHARGED_META_KEY]).toEqual({ scheme: 'exact', amount: '10000', price: '$0.01' });
    expect(transfersTo(result._meta[PAYMENT_RESPONSE_META_KEY].transaction)).toEqual([expect.objectContaining({ value: 10000n })]);
  });

  test('a store fault while charging fails closed: nothing is settled and the caller is told nothing was charged', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    // Room for the payment's claim, not for its record beside it.
    const small = await startTestServer(createMcpHandler(createApp({
      definitions: [{ tools: [withPayment(metered, engine, BY_USE)] }],
      origin: { local: true, allowedOrigins: new Set() },
      stateSecret: 'x'.repeat(32),
      store: new MemoryStore({ maxBytesSecurity: 800 }),
    })));
    try {
      const args = { reports: [{ input: 1000, output: 1000 }] };
      const payment = await createPayer().payUpto(await requiredFor('metered', args));
      const transfers = chain.transfers.length;
      const result = await callTool('metered', args, payment, small.mcpUrl);
      expect(result).toEqual({
        content: [{ type: 'text', text: 'Payment could not be processed: the server could not record it, so it was not settled. Nothing was charged; try again later.' }],
        isError: true,
      });
      expect(chain.transfers.length).toBe(transfers);
      expect(String(error.mock.calls.at(-1)?.[0])).toContain('a verified payment was not settled: its record could not be kept');
    } finally {
      vi.restoreAllMocks();
      await small.close();
    }
  });

  test('the stand-in chain refuses a settlement above the signed ceiling', async () => {
    const payer = createPayer();
    const required = await requiredFor('metered', { reports: [] });
    const payment = await payer.payUpto(required);
    const requirements = required.accepts.find((r) => r.scheme === 'upto') as PaymentRequirements;
    // What a faulty resource server could ask for: one unit more than was signed, straight to the facilitator.
    const receipt = await chain.facilitator.settle(payment, { ...requirements, amount: (CEILING + 1n).toString() });
    expect(receipt).toMatchObject({ success: false, errorReason: 'invalid_upto_evm_payload_settlement_exceeds_amount' });
    expect(chain.transfers.some((t) => t.from === payer.address)).toBe(false);
  });
});

describe('a tool\'s own price', () => {
  test('price: \'$0.05\' on defineTool shows in tools/list _meta["x402/price"] and is what a call settles', async () => {
    const list = await (await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, LEGACY)).json();
    const tool = list.result.tools.find((t: { name: string }) => t.name === 'priced');
    expect(tool._meta[PRICE_META_KEY]).toEqual({ scheme: 'exact', price: '$0.05', network: TEST_NETWORK, payTo: PAY_TO });
    const required = await requiredFor('priced', {});
    expect(required.accepts.map((r) => [r.scheme, r.amount])).toEqual([['exact', '50000']]);
    const result = await callTool('priced', {}, await createPayer().pay(required));
    expect(result.content).toEqual([{ type: 'text', text: 'priced answer' }]);
    expect(transfersTo(result._meta[PAYMENT_RESPONSE_META_KEY].transaction)).toEqual([expect.objectContaining({ value: 50000n })]);
  });
});
