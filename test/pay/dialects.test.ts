/**
 * The x402 dialects beside `_meta["x402/payment"]`: the seed tutorial's `X-PAYMENT` header and v2's
 * `PAYMENT-SIGNATURE` (lib/pay/header.ts), and x402 v1 payloads (lib/pay/v1.ts). Each is verified and settled
 * once by the same rules. Real EIP-712 signatures from throwaway keys; the real @x402/evm facilitator logic (v2
 * and v1) behind a fake chain (the only fake), reached over HTTP; calls through the real endpoint on loopback.
 */

import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import * as z from 'zod';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp } from '../../lib/app.js';
import { readPayConfig } from '../../lib/pay/config.js';
import { createPaymentEngine } from '../../lib/pay/engine.js';
import { withPayment } from '../../lib/pay/with-payment.js';
import type { ToolDefinition } from '../../lib/server/registry.js';
import { post, postModern } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createFakeChain, serveFacilitator, type FakeChain } from '../support/x402-chain.js';
import { createPayer, toHeader } from '../support/x402-payer.js';

const PAY_TO = '0x3333333333333333333333333333333333333333';
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };

let chain: FakeChain;
let facilitator: Awaited<ReturnType<typeof serveFacilitator>>;
let server: TestServer;
let runs = 0;

const echo: ToolDefinition<z.ZodObject<{ text: z.ZodString }>> = {
  name: 'paid_echo',
  description: 'Echoes the text.',
  input: z.object({ text: z.string() }),
  run({ text }) {
    runs += 1;
    return { content: [{ type: 'text', text: `echo: ${text}` }] };
  },
};

beforeAll(async () => {
  chain = createFakeChain();
  facilitator = await serveFacilitator(chain.facilitator);
  const engine = createPaymentEngine(readPayConfig({ X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitator.url })!);
  server = await startTestServer(createMcpHandler(createApp({
    definitions: [{ tools: [withPayment(echo, engine)] }],
    origin: { local: true, allowedOrigins: new Set(['https://app.example']) },
    stateSecret: 'x'.repeat(32),
  })));
});
afterAll(async () => {
  await server?.close();
  await facilitator?.close();
});
beforeEach(() => {
  runs = 0;
  chain.revertSettlements(false);
});

const call = (text: string, meta?: Record<string, unknown>, id: string | number = crypto.randomUUID()) => ({
  jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'paid_echo', arguments: { text }, ...(meta ? { _meta: meta } : {}) },
});

async function callLegacy(text: string, headers: Record<string, string> = {}, meta?: Record<string, unknown>) {
  const response = await post(server.mcpUrl, call(text, meta), { ...LEGACY, ...headers });
  return { status: response.status, body: await response.json() };
}

async function required(): Promise<PaymentRequired> {
  return (await callLegacy('price?')).body.result.structuredContent;
}

/** Transfers the chain accepted since `mark`. */
const transfersSince = (mark: number) => chain.transfers.slice(mark);

describe('the payment headers pay for the tools/call they accompany', () => {
  test('X-PAYMENT with an x402 v1 payment (the seed tutorial): verified, run, settled once, receipt in _meta', async () => {
    const payer = createPayer();
    const payment = await payer.payV1(await required());
    expect(payment).toMatchObject({ x402Version: 1, network: 'base-sepolia' });
    const mark = chain.transfers.length;
    const { body } = await callLegacy('v1 by header', { 'X-PAYMENT': toHeader(payment) });
    expect(body.result.isError).toBeFalsy();
    expect(body.result.content[0].text).toBe('echo: v1 by header');
    expect(body.result._meta['x402/payment-response']).toMatchObject({ success: true, payer: payer.address });
    expect(transfersSince(mark)).toEqual([expect.objectContaining({ from: payer.address, to: PAY_TO, value: 10_000n })]);
  });

  test('PAYMENT-SIGNATURE with an x402 v2 payment pays for a modern-wire call', async () => {
    const payer = createPayer();
    const payment = await payer.pay(await required());
    const mark = chain.transfers.length;
    const response = await postModern(server.mcpUrl, 1, 'tools/call', { name: 'paid_echo', arguments: { text: 'v2 by header' } },
      { headers: { 'PAYMENT-SIGNATURE': toHeader(payment) } });
    const { result } = await response.json();
    expect(result.content[0].text).toBe('echo: v2 by header');
    expect(result._meta['x402/payment-response']).toMatchObject({ success: true, network: 'eip155:84532' });
    expect(transfersSince(mark)).toHaveLength(1);
  });

  test('an x402 v1 payload is accepted in _meta["x402/payment"] too', async () => {
    const payment = await createPayer().payV1(await required());
    const mark = chain.transfers.length;
    const { body } = await callLegacy('v1 in meta', {}, { 'x402/payment': payment });
    expect(body.result._meta['x402/payment-response']).toMatchObject({ success: true });
    expect(transfersSince(mark)).toHaveLength(1);
  });

  test('a v1 payment whose signed amount was altered is refused by the v1 rules: PaymentRequired, the tool never runs', async () => {
    const payment = await createPayer().payV1(await required());
    const authorization = (payment.payload as { authorization: { value: string } }).authorization;
    authorization.value = String(BigInt(authorization.value) + 1n);
    const mark = chain.transfers.length;
    const { body } = await callLegacy('tampered', { 'X-PAYMENT': toHeader(payment) });
    expect(body.result.isError).toBe(true);
    expect(body.result.structuredContent).toMatchObject({ x402Version: 2, error: expect.stringMatching(/invalid/i) });
    expect([runs, transfersSince(mark).length]).toEqual([0, 0]);
  });
});

describe('exactly once, whatever the dialect', () => {
  test('the same X-PAYMENT sent again gets the first result back without a second settlement', async () => {
    const header = { 'X-PAYMENT': toHeader(await createPayer().payV1(await required())) };
    const mark = chain.transfers.length;
    const first = await callLegacy('once', header);
    const again = await callLegacy('once', header);
    expect(again.body.result).toEqual(first.body.result);
    expect([runs, transfersSince(mark).length]).toEqual([1, 1]);
  });

  test('one signed authorization sent as v1 by header, then as v2 in _meta, is settled once; for another call it is refused', async () => {
    const needed = await required();
    const v1 = await createPayer().payV1(needed);
    // The EIP-712 domain is the same in both versions, so the same signature is a valid v2 payment too.
    const v2: PaymentPayload = { x402Version: 2, accepted: needed.accepts[0]!, payload: v1.payload };
    const mark = chain.transfers.length;
    const first = await callLegacy('shared', { 'X-PAYMENT': toHeader(v1) });
    expect(first.body.result._meta['x402/payment-response']).toMatchObject({ success: true });
    const same = await callLegacy('shared', {}, { 'x402/payment': v2 });
    expect(same.body.result).toEqual(first.body.result);
    const other = await callLegacy('another call', { 'PAYMENT-SIGNATURE': toHeader(v2) });
    expect(other.body.result.structuredContent.error).toMatch(/^payment_already_used/);
    expect([runs, transfersSince(mark).length]).toEqual([1, 1]);
  });

  test('an official SDK client sending X-PAYMENT on every request is charged once, for its tools/call', async () => {
    const payer = createPayer();
    const header = toHeader(await payer.payV1(await required()));
    const client = new ClientV1({ name: 'x-payment-everywhere', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(server.mcpUrl), { requestInit: { headers: { 'X-PAYMENT': header } } }));
    const mark = chain.transfers.length;
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['paid_echo']);
      const paid = await client.callTool({ name: 'paid_echo', arguments: { text: 'sdk' } });
      expect(paid.content).toEqual([{ type: 'text', text: 'echo: sdk' }]);
      expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true, payer: payer.address });
    } finally {
      await client.close();
    }
    expect(transfersSince(mark)).toHaveLength(1);
  });
});

describe('where a payment header cannot apply, it is refused clearly', () => {
  test('a batch holding a tools/call with a payment header gets 400 and -32600; nothing runs or settles', async () => {
    const header = toHeader(await createPayer().payV1(await required()));
    const mark = chain.transfers.length;
    const response = await post(server.mcpUrl, [call('a', undefined, 1), call('b', undefined, 2)],
      { 'mcp-protocol-version': '2025-03-26', 'X-PAYMENT': header });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ code: -32600, message: expect.stringContaining('pays for one tools/call') });
    expect([runs, transfersSince(mark).length]).toEqual([0, 0]);
    const pings = await post(server.mcpUrl, [{ jsonrpc: '2.0', id: 1, method: 'ping' }], { 'mcp-protocol-version': '2025-03-26', 'X-PAYMENT': header });
    expect(pings.status).toBe(200);
  });

  test('a payment header beside a different payment (the other header, or _meta) gets -32602; nothing runs or settles', async () => {
    const needed = await required();
    const [a, b] = [await createPayer().payV1(needed), await createPayer().pay(needed)];
    const mark = chain.transfers.length;
    const twoHeaders = await callLegacy('two', { 'X-PAYMENT': toHeader(a), 'PAYMENT-SIGNATURE': toHeader(b) });
    expect(twoHeaders.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('different payments') });
    const headerAndMeta = await callLegacy('two', { 'PAYMENT-SIGNATURE': toHeader(b) }, { 'x402/payment': a });
    expect(headerAndMeta.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('different payments') });
    expect([runs, transfersSince(mark).length]).toEqual([0, 0]);
  });

  test('a browser client may send the payment headers: the preflight allows them', async () => {
    const preflight = await fetch(server.mcpUrl, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-payment, payment-signature' },
    });
    const allowed = preflight.headers.get('access-control-allow-headers')!.split(',').map((h) => h.trim());
    expect(allowed).toEqual(expect.arrayContaining(['x-payment', 'payment-signature']));
  });
});

describe('a base64 payment gets the body\'s bounds once decoded (MCP_MAX_JSON_DEPTH, MCP_MAX_BODY_BYTES)', () => {
  /** A v2-shaped payment whose `payload` nests `depth` arrays deep, as base64 JSON. */
  const nested = (depth: number) => Buffer.from(
    `{"x402Version":2,"accepted":{},"payload":{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}}`,
  ).toString('base64');

  test('a payment nesting 100,000 levels in _meta gets invalid_payload, not an internal error; nothing runs, no stack is logged', async () => {
    const logged = vi.spyOn(console, 'error');
    try {
      const mark = chain.transfers.length;
      const { status, body } = await callLegacy('deep', {}, { 'x402/payment': nested(100_000) });
      expect(status).toBe(200);
      expect(body.error).toBeUndefined();
      expect(body.result).toMatchObject({ isError: true, structuredContent: { x402Version: 2, error: expect.stringMatching(/^invalid_payload: .*64 levels/) } });
      expect([runs, transfersSince(mark).length]).toEqual([0, 0]);
      expect(logged).not.toHaveBeenCalled();
    } finally {
      logged.mockRestore();
    }
  });

  test('a PAYMENT-SIGNATURE nesting deeper than 64 levels gets invalid_payload before any facilitator is asked', async () => {
    const { body } = await callLegacy('deep header', { 'PAYMENT-SIGNATURE': nested(65) });
    expect(body.result.structuredContent.error).toMatch(/^invalid_payload: .*64 levels/);
    const shallow = await callLegacy('shallow header', { 'PAYMENT-SIGNATURE': nested(60) });
    expect(shallow.body.result.structuredContent.error).not.toMatch(/^invalid_payload/);
    expect(runs).toBe(0);
  });

  test('a header payment that decodes to more than MCP_MAX_BODY_BYTES gets invalid_payload', async () => {
    const engine = createPaymentEngine(readPayConfig({ X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitator.url, MCP_MAX_BODY_BYTES: '2000' })!);
    const small = await startTestServer(createMcpHandler(createApp({
      definitions: [{ tools: [withPayment(echo, engine)] }], origin: { local: true, allowedOrigins: new Set() }, stateSecret: 'x'.repeat(32),
    })));
    try {
      const big = Buffer.from(JSON.stringify({ x402Version: 2, accepted: {}, payload: { pad: 'x'.repeat(3000) } })).toString('base64');
      const response = await post(small.mcpUrl, call('big header'), { ...LEGACY, 'PAYMENT-SIGNATURE': big });
      expect((await response.json()).result.structuredContent.error).toMatch(/^invalid_payload: .*2000 bytes/);
      expect(runs).toBe(0);
    } finally {
      await small.close();
    }
  });
});
