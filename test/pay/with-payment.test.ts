/**
 * x402 v2 over MCP, offline with real cryptography: throwaway viem keys sign real EIP-3009 authorizations, and
 * the real @x402/evm facilitator logic verifies and settles them behind a fake chain (the only fake), reached
 * over HTTP by the production HTTPFacilitatorClient. Calls go through the real MCP endpoint on loopback.
 */

import { createServer } from 'node:net';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import * as z from 'zod';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp } from '../../lib/app.js';
import { readPayConfig } from '../../lib/pay/config.js';
import { createPaymentEngine, type PaymentEngine } from '../../lib/pay/engine.js';
import { withPayment } from '../../lib/pay/with-payment.js';
import type { ToolDefinition } from '../../lib/server/registry.js';
import { MemoryStore } from '../../lib/store/memory.js';
import type { Store } from '../../lib/store/types.js';
import { UpstashStore } from '../../lib/store/upstash.js';
import { openSession, post, readSse } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';
import { createFakeChain, serveFacilitator, TEST_ASSET, TEST_NETWORK, type FakeChain } from '../support/x402-chain.js';
import { createPayer } from '../support/x402-payer.js';

const PAY_TO = privateKeyToAccount(generatePrivateKey()).address;
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };

let chain: FakeChain;
let facilitator: Awaited<ReturnType<typeof serveFacilitator>>;
let server: TestServer;
let redis: SharedRedis;
const runs = { echo: 0, fail: 0 };

const echo: ToolDefinition<z.ZodObject<{ text: z.ZodString }>> = {
  name: 'paid_echo',
  description: 'Echoes the text.',
  input: z.object({ text: z.string() }),
  run({ text }) {
    runs.echo += 1;
    return { content: [{ type: 'text', text: `echo: ${text}` }] };
  },
};

const failing: ToolDefinition = {
  name: 'paid_fail',
  description: 'Always fails.',
  run() {
    runs.fail += 1;
    return { content: [{ type: 'text', text: 'the tool broke' }], isError: true };
  },
};

function paidApp(engine: PaymentEngine, store?: Store) {
  return createMcpHandler(createApp({
    definitions: [{ tools: [withPayment(echo, engine), withPayment(failing, engine), { ...withPayment({ ...echo, name: 'paid_task_echo' }, engine), task: { support: 'optional' } }] }],
    origin: { local: true, allowedOrigins: new Set() },
    stateSecret: 'x'.repeat(32),
    store,
  }));
}

const engineFor = (facilitatorUrl: string) =>
  createPaymentEngine(readPayConfig({ X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitatorUrl })!);

async function callTool(url: string, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) {
  const response = await post(url, {
    jsonrpc: '2.0', id: crypto.randomUUID(), method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
  }, LEGACY);
  return (await response.json()).result;
}

/** The PaymentRequired an unpaid call answers with. */
async function paymentRequired(url: string): Promise<PaymentRequired> {
  return (await callTool(url, 'paid_echo', { text: 'hi' })).structuredContent;
}

const withPaymentMeta = (payload: PaymentPayload) => ({ 'x402/payment': payload });

beforeAll(async () => {
  chain = createFakeChain();
  [facilitator, redis] = await Promise.all([serveFacilitator(chain.facilitator), startSharedRedis()]);
  server = await startTestServer(paidApp(engineFor(facilitator.url)));
});
afterAll(async () => {
  await server?.close();
  await facilitator?.close();
  await redis?.stop();
});
beforeEach(() => {
  chain.revertSettlements(false);
});

describe('x402 over MCP with real signatures and the real facilitator logic (fake chain)', () => {
  test('unpaid: an isError result with PaymentRequired in structuredContent and as JSON text; the tool does not run', async () => {
    const before = runs.echo;
    const result = await callTool(server.mcpUrl, 'paid_echo', { text: 'hi' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      x402Version: 2,
      error: 'Payment required to access this tool',
      resource: { url: 'mcp://tool/paid_echo', description: 'Tool: paid_echo', mimeType: 'application/json' },
      accepts: [{
        scheme: 'exact', network: TEST_NETWORK, amount: '10000', asset: TEST_ASSET, payTo: PAY_TO, maxTimeoutSeconds: 300,
        extra: { name: 'USDC', version: '2' },
      }],
    });
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    expect(runs.echo).toBe(before);
  });

  test('paid: verified, run, settled once; the receipt is in _meta["x402/payment-response"]', async () => {
    const payer = createPayer();
    const payment = await payer.pay(await paymentRequired(server.mcpUrl));
    const transfers = chain.transfers.length;
    const result = await callTool(server.mcpUrl, 'paid_echo', { text: 'paid' }, withPaymentMeta(payment));
    expect(result.isError).toBeUndefined();
    expect(result.content).toEqual([{ type: 'text', text: 'echo: paid' }]);
    expect(result._meta['x402/payment-response']).toMatchObject({ success: true, network: TEST_NETWORK, payer: payer.address, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(chain.transfers.slice(transfers)).toEqual([expect.objectContaining({ from: payer.address, to: PAY_TO, value: 10_000n })]);
    expect(chain.transfers.at(-1)!.hash).toBe(result._meta['x402/payment-response'].transaction);
  });

  test('paid in a task: the payment in the call\'s _meta is verified and settled by the task; tasks/result carries the receipt', async () => {
    const payer = createPayer();
    const payment = await payer.pay((await callTool(server.mcpUrl, 'paid_task_echo', { text: 'hi' })).structuredContent);
    const transfers = chain.transfers.length;
    const created = await (await post(server.mcpUrl, {
      jsonrpc: '2.0', id: 't1', method: 'tools/call',
      params: { name: 'paid_task_echo', arguments: { text: 'in a task' }, task: {}, _meta: withPaymentMeta(payment) },
    }, LEGACY)).json();
    const reply = await post(server.mcpUrl, { jsonrpc: '2.0', id: 't2', method: 'tasks/result', params: { taskId: created.result.task.taskId } }, LEGACY);
    const { result } = reply.headers.get('content-type')?.startsWith('text/event-stream') ? (await readSse(reply).rest()).at(-1) : await reply.json();
    expect(result.content).toEqual([{ type: 'text', text: 'echo: in a task' }]);
    expect(result._meta['x402/payment-response']).toMatchObject({ success: true, payer: payer.address });
    expect(chain.transfers.slice(transfers)).toEqual([expect.objectContaining({ from: payer.address, to: PAY_TO, value: 10_000n })]);
  });

  test('the payment is also accepted as a base64 string and under the x402.payment key', async () => {
    const required = await paymentRequired(server.mcpUrl);
    const base64 = Buffer.from(JSON.stringify(await createPayer().pay(required))).toString('base64');
    expect((await callTool(server.mcpUrl, 'paid_echo', { text: 'b64' }, { 'x402/payment': base64 }))._meta['x402/payment-response'].success).toBe(true);
    const dotted = await createPayer().pay(required);
    expect((await callTool(server.mcpUrl, 'paid_echo', { text: 'dot' }, { 'x402.payment': dotted }))._meta['x402/payment-response'].success).toBe(true);
  });

  test('tampered amount: the signature no longer verifies; nothing runs, nothing is charged', async () => {
    const payment = await createPayer().pay(await paymentRequired(server.mcpUrl));
    const authorization = payment.payload.authorization as { value: string };
    authorization.value = String(BigInt(authorization.value) + 1n);
    const [before, transfers] = [runs.echo, chain.transfers.length];
    const result = await callTool(server.mcpUrl, 'paid_echo', { text: 'x' }, withPaymentMeta(payment));
    expect(result).toMatchObject({ isError: true, structuredContent: { x402Version: 2, error: 'invalid_exact_evm_signature' } });
    expect([runs.echo, chain.transfers.length]).toEqual([before, transfers]);
  });

  test('wrong payee: an authorization paying someone else is refused; nothing runs, nothing is charged', async () => {
    const [requirements] = (await paymentRequired(server.mcpUrl)).accepts;
    const elsewhere = privateKeyToAccount(generatePrivateKey()).address;
    const payment = await createPayer().sign(requirements!, { to: elsewhere });
    const [before, transfers] = [runs.echo, chain.transfers.length];
    const result = await callTool(server.mcpUrl, 'paid_echo', { text: 'x' }, withPaymentMeta(payment));
    expect(result.isError).toBe(true);
    expect(result.structuredContent.error).toBe('invalid_exact_evm_recipient_mismatch');
    expect([runs.echo, chain.transfers.length]).toEqual([before, transfers]);
  });

  test('expired: an authorization past its validBefore is refused; nothing runs, nothing is charged', async () => {
    const [requirements] = (await paymentRequired(server.mcpUrl)).accepts;
    const past = String(Math.floor(Date.now() / 1000) - 60);
    const payment = await createPayer().sign(requirements!, { validBefore: past });
    const [before, transfers] = [runs.echo, chain.transfers.length];
    const result = await callTool(server.mcpUrl, 'paid_echo', { text: 'x' }, withPaymentMeta(payment));
    expect(result.isError).toBe(true);
    expect(result.structuredContent.error).toBe('invalid_exact_evm_payload_authorization_valid_before');
    expect([runs.echo, chain.transfers.length]).toEqual([before, transfers]);
  });

  test('replay: the same payment again returns the first result and is never settled twice', async () => {
    const payment = await createPayer().pay(await paymentRequired(server.mcpUrl));
    const [before, transfers] = [runs.echo, chain.transfers.length];
    const first = await callTool(server.mcpUrl, 'paid_echo', { text: 'once' }, withPaymentMeta(payment));
    const [again, concurrent] = await Promise.all([
      callTool(server.mcpUrl, 'paid_echo', { text: 'once' }, withPaymentMeta(payment)),
      callTool(server.mcpUrl, 'paid_echo', { text: 'once' }, withPaymentMeta(payment)),
    ]);
    expect(again).toEqual(first);
    expect(concurrent).toEqual(first);
    expect([runs.echo - before, chain.transfers.length - transfers]).toEqual([1, 1]);
  });

  test('replay for another call: a used payment is refused for other arguments', async () => {
    const payment = await createPayer().pay(await paymentRequired(server.mcpUrl));
    await callTool(server.mcpUrl, 'paid_echo', { text: 'first' }, withPaymentMeta(payment));
    const transfers = chain.transfers.length;
    const other = await callTool(server.mcpUrl, 'paid_echo', { text: 'second' }, withPaymentMeta(payment));
    expect(other).toMatchObject({ isError: true, structuredContent: { error: expect.stringMatching(/^payment_already_used/) } });
    expect(chain.transfers.length).toBe(transfers);
  });

  test('tool failure: the failure is passed through and nothing is settled', async () => {
    const required = (await callTool(server.mcpUrl, 'paid_fail', {})).structuredContent;
    const payment = await createPayer().pay(required);
    const [before, transfers] = [runs.fail, chain.transfers.length];
    const result = await callTool(server.mcpUrl, 'paid_fail', {}, withPaymentMeta(payment));
    expect(result).toEqual({ content: [{ type: 'text', text: 'the tool broke' }], isError: true });
    expect([runs.fail - before, chain.transfers.length - transfers]).toEqual([1, 0]);
  });

  test('settlement failure: the tool ran but its output is withheld; a failed receipt and PaymentRequired come back', async () => {
    const payment = await createPayer().pay(await paymentRequired(server.mcpUrl));
    chain.revertSettlements(true);
    const [before, transfers] = [runs.echo, chain.transfers.length];
    const result = await callTool(server.mcpUrl, 'paid_echo', { text: 'secret output' }, withPaymentMeta(payment));
    expect(runs.echo - before).toBe(1);
    expect(chain.transfers.length).toBe(transfers);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toContain('secret output');
    expect(result.structuredContent).toMatchObject({
      x402Version: 2,
      error: expect.stringMatching(/^Payment settlement failed: /),
      'x402/payment-response': { success: false },
    });
    expect(result._meta?.['x402/payment-response']).toBeUndefined();
  });
});

describe('the facilitator as an in-process FacilitatorClient (fake chain)', () => {
  test('a paid call settles the same way without HTTP in between', async () => {
    const inProcess = await startTestServer(paidApp(createPaymentEngine(
      readPayConfig({ X402_PAY_TO: PAY_TO })!, { facilitator: chain.facilitator })));
    try {
      const payment = await createPayer().pay(await paymentRequired(inProcess.mcpUrl));
      const calls = facilitator.calls.length;
      const result = await callTool(inProcess.mcpUrl, 'paid_echo', { text: 'direct' }, withPaymentMeta(payment));
      expect(result._meta['x402/payment-response']).toMatchObject({ success: true });
      expect(facilitator.calls.length).toBe(calls);
    } finally {
      await inProcess.close();
    }
  });
});

describe('facilitator down (fake chain, real HTTP facilitator client)', () => {
  let down: TestServer;
  beforeAll(async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    down = await startTestServer(paidApp(engineFor(`http://127.0.0.1:${port}`)));
  });
  afterAll(() => down?.close());

  test('unpaid and paid calls get a clear error saying nothing was charged; the tool does not run', async () => {
    const payment = await createPayer().pay(await paymentRequired(server.mcpUrl));
    const [before, transfers] = [runs.echo, chain.transfers.length];
    for (const meta of [undefined, withPaymentMeta(payment)]) {
      const result = await callTool(down.mcpUrl, 'paid_echo', { text: 'x' }, meta);
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(result.content[0].text).toMatch(/^Payment could not be processed: the x402 facilitator \(127\.0\.0\.1:\d+\) could not be reached \(.+\)\. Nothing was charged; try again later\.$/);
    }
    expect([runs.echo, chain.transfers.length]).toEqual([before, transfers]);
  });
});

describe('payment records are security records (memory store, fake chain)', () => {
  test('a flood of batched notifications/cancelled cannot evict a payment\'s record: its replay gets the first result, settled once', async () => {
    const store = new MemoryStore({ maxBytes: 1_000_000, maxEntries: 2_000 });
    const paid = await startTestServer(paidApp(engineFor(facilitator.url), store));
    try {
      const payment = await createPayer().pay(await paymentRequired(paid.mcpUrl));
      const [before, transfers] = [runs.echo, chain.transfers.length];
      const first = await callTool(paid.mcpUrl, 'paid_echo', { text: 'paid once' }, withPaymentMeta(payment));
      // An anonymous client with a session files 32 cancellations a POST, each a store entry (issue 25 item 2).
      const session = await openSession(paid.mcpUrl, '2025-03-26');
      for (let batch = 0; batch < 100; batch++) {
        const cancels = Array.from({ length: 32 }, (_, i) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: `${batch}-${i}` } }));
        expect((await post(paid.mcpUrl, cancels, session)).status).toBe(202);
      }
      expect(store.size).toBeLessThanOrEqual(2_000);
      const replayed = await callTool(paid.mcpUrl, 'paid_echo', { text: 'paid once' }, withPaymentMeta(payment));
      expect(replayed).toEqual(first);
      expect([runs.echo - before, chain.transfers.length - transfers]).toEqual([1, 1]);
    } finally {
      await paid.close();
    }
  });

  test('a payment the store has no room to record is not settled: the caller is told nothing was charged', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    // Room for the payment's claim, not for its record beside it.
    const paid = await startTestServer(paidApp(engineFor(facilitator.url), new MemoryStore({ maxBytesSecurity: 800 })));
    try {
      const payment = await createPayer().pay(await paymentRequired(paid.mcpUrl));
      const [before, transfers] = [runs.echo, chain.transfers.length];
      const result = await callTool(paid.mcpUrl, 'paid_echo', { text: 'not recorded' }, withPaymentMeta(payment));
      expect(result).toEqual({
        content: [{ type: 'text', text: 'Payment could not be processed: the server could not record it, so it was not settled. Nothing was charged; try again later.' }],
        isError: true,
      });
      expect([runs.echo - before, chain.transfers.length - transfers]).toEqual([1, 0]);
      expect(String(error.mock.calls.at(-1)?.[0])).toContain('a verified payment was not settled: its record could not be kept');
    } finally {
      vi.restoreAllMocks();
      await paid.close();
    }
  });
});

describe('replay across instances (shared Upstash store on real Redis, fake chain)', () => {
  test('a payment replayed to another instance returns the first result without a second settlement', async () => {
    const prefix = `pay${crypto.randomUUID().slice(0, 8)}:`;
    const [a, b] = await Promise.all([0, 1].map(() =>
      startTestServer(paidApp(engineFor(facilitator.url), new UpstashStore(redis.config, { prefix })))));
    try {
      const payment = await createPayer().pay(await paymentRequired(a!.mcpUrl));
      const transfers = chain.transfers.length;
      const first = await callTool(a!.mcpUrl, 'paid_echo', { text: 'shared' }, withPaymentMeta(payment));
      const replayed = await callTool(b!.mcpUrl, 'paid_echo', { text: 'shared' }, withPaymentMeta(payment));
      expect(replayed).toEqual(first);
      expect(chain.transfers.length - transfers).toBe(1);
    } finally {
      await Promise.all([a?.close(), b?.close()]);
    }
  });
});
