/**
 * A call sent back to pay (x402) did not succeed: its span's `vercel.rpc.outcome` is `request_error` (the caller's
 * request lacked a payment, as a paid read's PAYMENT_REQUIRED error says), its log line and `error.type` name
 * PAYMENT_REQUIRED's code, and the usage counters count it as a refusal under `payment`, not as a call served; on
 * the extension binding (a 2026-07-28 `payment_required` result, no error on the wire) and the tool-result binding
 * alike. A facilitator that cannot be reached is the server's failure, not a refusal for payment.
 *
 * Real HTTP on loopback, real EIP-3009 signatures and the real facilitator logic over HTTP (only the chain is fake),
 * the OpenTelemetry SDK's in-memory exporter, the request log as written to stdout.
 */

import { context, trace, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import * as z from 'zod';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp, defaultDefinitions, type App } from '../../lib/app.js';
import { defineTool } from '../../lib/define/index.js';
import { RESULT_TYPE_PAYMENT_REQUIRED, X402_EXTENSION } from '../../lib/pay/payload.js';
import { PAYMENT_REQUIRED } from '../../lib/protocol/errors.js';
import { REFUSAL } from '../../lib/server/context.js';
import { readUsage } from '../../lib/usage/read.js';
import type { UsageView } from '../../lib/usage/view.js';
import { freePort } from '../support/free-port.js';
import { captureRequestLines } from '../support/request-lines.js';
import { post, postModern } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createFakeChain, serveFacilitator } from '../support/x402-chain.js';
import { createPayer } from '../support/x402-payer.js';

const PAY_TO = '0x2222222222222222222222222222222222222222';
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
const spans = new InMemorySpanExporter();
let facilitator: Awaited<ReturnType<typeof serveFacilitator>>;
let paid: { app: App; server: TestServer };
let down: { app: App; server: TestServer };
let lines: Array<Record<string, unknown>>;

const forecast = defineTool({
  name: 'forecast', description: 'A paid forecast.', input: z.object({ city: z.string() }), price: '$0.02',
  run: ({ city }) => `Sunny in ${city}.`,
});

async function start(facilitatorUrl: string) {
  const app = createApp({
    definitions: defaultDefinitions({ X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitatorUrl }, { tools: [forecast] }),
    origin: { local: true, allowedOrigins: new Set() },
    stateSecret: 'x'.repeat(32),
    usage: { trustForwarded: false },
    requestLog: true,
  });
  return { app, server: await startTestServer(createMcpHandler(app)) };
}

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  facilitator = await serveFacilitator(createFakeChain().facilitator);
  [paid, down] = await Promise.all([start(facilitator.url), freePort().then((port) => start(`http://127.0.0.1:${port}`))]);
}, 30_000);
afterAll(async () => {
  trace.disable();
  context.disable();
  await Promise.all([paid?.server.close(), down?.server.close(), facilitator?.close()]);
});

beforeEach(() => {
  spans.reset();
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  lines = captureRequestLines();
});
afterEach(() => vi.restoreAllMocks());

let ids = 0;
const params = (meta?: Record<string, unknown>) => ({ name: 'forecast', arguments: { city: 'Oslo' }, ...(meta ? { _meta: meta } : {}) });
const modern = (url: string, meta?: Record<string, unknown>) =>
  postModern(url, `m${++ids}`, 'tools/call', params(), { capabilities: { extensions: { [X402_EXTENSION]: {} } }, meta }).then((r) => r.json());
const legacy = (url: string, meta?: Record<string, unknown>) =>
  post(url, { jsonrpc: '2.0', id: `l${++ids}`, method: 'tools/call', params: params(meta) }, LEGACY).then((r) => r.json());

/** The one server span of the call, once it ended (it ends when the reply is done). */
async function callSpan(): Promise<ReadableSpan> {
  await vi.waitFor(() => expect(spans.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER)).toHaveLength(1));
  return spans.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER)!;
}

/** The call's request log line, once written (when the request is done). */
async function callLine(): Promise<Record<string, unknown>> {
  await vi.waitFor(() => expect(lines.filter((l) => l.method === 'tools/call')).toHaveLength(1));
  return lines.find((l) => l.method === 'tools/call')!;
}

/** The hour's counters once every request made so far is written (they are written beside the reply, after it). */
async function counted(app: App): Promise<UsageView> {
  await app.usage!.settled();
  return readUsage(app.store, 'hour');
}

describe('a call sent back to pay', () => {
  test.each([
    ['the extension binding (2026-07-28, org.x402/payment declared)', modern, (r: any) => expect(r.result.resultType).toBe(RESULT_TYPE_PAYMENT_REQUIRED), String(PAYMENT_REQUIRED)],
    ['the tool-result binding (2025-11-25)', legacy, (r: any) => expect(r.result).toMatchObject({ isError: true, structuredContent: { x402Version: 2 } }), 'tool_error'],
  ])('on %s is a request_error refused for payment, never a success or a call served', async (_binding, send, isPaymentRequired, errorType) => {
    const before = await readUsage(paid.app.store, 'hour');
    isPaymentRequired(await send(paid.server.mcpUrl));
    const span = await callSpan();
    expect(span.attributes).toMatchObject({ 'vercel.rpc.outcome': 'request_error', 'error.type': errorType });
    expect((await callLine()).error).toBe(errorType);
    const view = await counted(paid.app);
    expect(view.refusals[REFUSAL.payment]).toBe((before.refusals[REFUSAL.payment] ?? 0) + 1);
    expect(view.totals.calls).toBe(before.totals.calls);
  });

  test('a paid call on the extension binding is a success and a call served', async () => {
    const before = await readUsage(paid.app.store, 'hour');
    const required = await modern(paid.server.mcpUrl);
    spans.reset();
    lines.length = 0;
    const answer = await modern(paid.server.mcpUrl, { 'x402/payment': await createPayer().pay(required.result.paymentRequired) });
    expect(answer.result.content[0].text).toBe('Sunny in Oslo.');
    expect((await callSpan()).attributes['vercel.rpc.outcome']).toBe('success');
    expect((await callLine()).error).toBeUndefined();
    const view = await counted(paid.app);
    expect(view.totals.calls).toBe(before.totals.calls + 1);
    expect(view.refusals[REFUSAL.payment]).toBe((before.refusals[REFUSAL.payment] ?? 0) + 1);
  });

  test('a facilitator that cannot be reached is the server\'s failure, not a refusal for payment', async () => {
    const result = (await legacy(down.server.mcpUrl)).result;
    expect(result.content[0].text).toMatch(/^Payment could not be processed: the x402 facilitator/);
    expect((await callSpan()).attributes['vercel.rpc.outcome']).toBe('execution_failure');
    const view = await counted(down.app);
    expect(view.refusals).toEqual({});
    expect(view.totals).toMatchObject({ calls: 1, errors: 1, refusals: 0 });
  });
});
