/**
 * Nothing of a paid reply leaves before it is paid (docs/architecture.md rule 15; issue 42 items 2 and 3), on the
 * paths that run while the call does: progress notifications (both wires), a stream read and then cancelled, and a
 * tool that answers after its call was cancelled. Real signatures and the real @x402/evm facilitator logic behind a
 * fake chain, reached over HTTP; the official SDK clients; a scripted upstream that writes its reply slowly, in
 * 8-character pieces, so that progress today would carry each piece.
 */

import type { Client } from '@modelcontextprotocol/client';
import type { PaymentPayload } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp, defaultDefinitions } from '../../lib/app.js';
import { readPayConfig } from '../../lib/pay/config.js';
import { createPaymentEngine } from '../../lib/pay/engine.js';
import { withPayment } from '../../lib/pay/with-payment.js';
import { META_LOG_LEVEL } from '../../lib/protocol/meta.js';
import { HELD_PROGRESS_MESSAGE } from '../../lib/server/context.js';
import type { ToolDefinition } from '../../lib/server/registry.js';
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

/** A paid tool that answers only once its call is cancelled, as a tool that ignores its signal would. */
let started: () => void;
let answered: () => void;
const latch = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
};
let runs = 0;
const stubborn: ToolDefinition<z.ZodObject<{ text: z.ZodString }>> = {
  name: 'paid_stubborn',
  description: 'Answers after its call is cancelled, the first time.',
  input: z.object({ text: z.string() }),
  async run({ text }, ctx) {
    runs += 1;
    if (runs === 1) {
      started();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      setImmediate(() => answered());
    }
    return { content: [{ type: 'text', text: `stubborn: ${text}` }] };
  },
};

/** A paid tool that reports its answer as it goes, in a log line and a progress message, as a tool may. */
const chatty: ToolDefinition<z.ZodObject<{ text: z.ZodString }>> = {
  name: 'paid_chatty',
  description: 'Says its answer in logs and progress before returning it.',
  input: z.object({ text: z.string() }),
  run({ text }, ctx) {
    ctx.log('info', `the answer is ${text}`);
    ctx.progress(1, 2, `the answer is ${text}`);
    return { content: [{ type: 'text', text: `the answer is ${text}` }] };
  },
};

beforeAll(async () => {
  chain = createFakeChain();
  [facilitator, upstream] = await Promise.all([serveFacilitator(chain.facilitator), startUpstream()]);
  const env = {
    X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitator.url,
    AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'test-model', AGENT_REPLY_DEADLINE_MS: 'off',
  };
  const engine = createPaymentEngine(readPayConfig(env)!);
  server = await startTestServer(createMcpHandler(createApp({
    definitions: [...defaultDefinitions(env), { tools: [withPayment(stubborn, engine), withPayment(chatty, engine)] }],
    origin: { local: true, allowedOrigins: new Set() },
    stateSecret: 'x'.repeat(32),
  })));
}, 30_000);
afterAll(async () => {
  await server?.close();
  await facilitator?.close();
  upstream?.stop();
});

type Result = { isError?: boolean; content?: Array<{ text?: string }>; structuredContent?: any; _meta?: Record<string, any> };
const settlements = () => facilitator.calls.filter((path) => path.endsWith('/settle')).length;

async function connected(era: Era): Promise<Client> {
  const client = createV2Client(era);
  await connectHttp(client, server.mcpUrl);
  return client;
}

/** What the caller signs after reading the PaymentRequired of an unpaid call with these arguments. */
async function paymentFor(client: Client, name: string, args: Record<string, unknown>): Promise<PaymentPayload> {
  const unpaid = await client.callTool({ name, arguments: args }) as Result;
  expect(unpaid.isError).toBe(true);
  return createPayer().pay(unpaid.structuredContent);
}

/** Every reply the scripted upstream writes begins "Echo: " and repeats the message, whose marker is unique. */
const carriesReply = (text: string | undefined, marker: string) => text !== undefined && (text.includes(marker) || text.includes('Echo:'));

describe.each(['legacy', 'modern'] as const)('a paid call on the %s wire', (era) => {
  test('streams status-only progress: when settlement then fails, the caller has seen none of the reply', async () => {
    const client = await connected(era);
    try {
      const marker = crypto.randomUUID();
      const message = `fault:slow ${marker}`;
      const payment = await paymentFor(client, 'chat_with_agent', { message });
      const seen: Array<{ progress: number; message?: string }> = [];
      const before = { settlements: settlements(), transfers: chain.transfers.length };
      chain.revertSettlements(true);
      let result: Result;
      try {
        result = await client.callTool({ name: 'chat_with_agent', arguments: { message }, _meta: { 'x402/payment': payment } },
          { onprogress: (p) => void seen.push(p) }) as Result;
      } finally {
        chain.revertSettlements(false);
      }
      // The agent wrote its whole reply, the settlement was tried and failed, and the reply was withheld.
      expect(await upstream.requestsFor(message)).toHaveLength(1);
      expect(settlements() - before.settlements).toBe(1);
      expect(chain.transfers.length).toBe(before.transfers);
      expect(result.isError).toBe(true);
      expect(result.structuredContent.error).toMatch(/^Payment settlement failed/);
      // Progress went out all along (it keeps the client's timeouts alive), and none of it was the reply.
      expect(seen.length).toBeGreaterThan(1);
      expect(seen.filter((p) => carriesReply(p.message, marker))).toEqual([]);
      expect(seen.every((p) => p.message === HELD_PROGRESS_MESSAGE)).toBe(true);
      expect(JSON.stringify(result)).not.toContain(marker);
    } finally {
      await client.close();
    }
  });

  test('streams status-only progress, and the whole reply comes with the receipt once settled', async () => {
    const client = await connected(era);
    try {
      const message = `fault:slow ${crypto.randomUUID()}`;
      const payment = await paymentFor(client, 'chat_with_agent', { message });
      const seen: string[] = [];
      const result = await client.callTool({ name: 'chat_with_agent', arguments: { message }, _meta: { 'x402/payment': payment } },
        { onprogress: (p) => void seen.push(p.message ?? '') }) as Result;
      expect(result.structuredContent).toMatchObject({ reply: `Echo: ${message} (history 0)` });
      expect(result._meta?.['x402/payment-response']).toMatchObject({ success: true });
      expect(seen.length).toBeGreaterThan(1);
      expect(seen.every((text) => text === HELD_PROGRESS_MESSAGE)).toBe(true);
    } finally {
      await client.close();
    }
  });

  test('a stream read and then cancelled carried none of the reply and settled nothing; the payment still buys the reply', async () => {
    const client = await connected(era);
    try {
      const marker = crypto.randomUUID();
      const message = `fault:slow ${marker} and a little more to write`;
      const payment = await paymentFor(client, 'chat_with_agent', { message });
      const before = settlements();
      const seen: string[] = [];
      const abort = new AbortController();
      const call = client.callTool({ name: 'chat_with_agent', arguments: { message }, _meta: { 'x402/payment': payment } }, {
        signal: abort.signal,
        // The caller reads a few notifications of the stream, then walks away.
        onprogress: (p) => {
          seen.push(p.message ?? '');
          if (seen.length === 3) abort.abort();
        },
      });
      await expect(call).rejects.toThrow();
      await upstream.waitFor((log) => log.some((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message));
      expect(seen.filter((text) => carriesReply(text, marker))).toEqual([]);

      // The same payment again: the cancelled call held it until it ended and did not take it, so it pays for this one.
      const paid = await client.callTool({ name: 'chat_with_agent', arguments: { message }, _meta: { 'x402/payment': payment } }) as Result;
      expect(paid.structuredContent).toMatchObject({ reply: `Echo: ${message} (history 0)` });
      expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });
      expect(settlements() - before).toBe(1);
      expect(await upstream.requestsFor(message)).toHaveLength(2);
    } finally {
      await client.close();
    }
  });
});

describe('a paid tool that answers after its call was cancelled', () => {
  test('is not settled: its answer can no longer reach the caller, so the payment stays the payer\'s', async () => {
    const client = await connected('legacy');
    try {
      const args = { text: crypto.randomUUID() };
      const payment = await paymentFor(client, 'paid_stubborn', args);
      const before = settlements();
      const running = latch();
      const done = latch();
      started = running.open;
      answered = done.open;
      const abort = new AbortController();
      const call = client.callTool({ name: 'paid_stubborn', arguments: args, _meta: { 'x402/payment': payment } }, { signal: abort.signal });
      await running.opened;
      abort.abort();
      await expect(call).rejects.toThrow();
      await done.opened;
      // The same payment again waits for the cancelled call to let it go. Had that call settled, this would be its
      // replay (its result, not run again); it was not, so the tool runs for this call and the payment is settled once.
      const paid = await client.callTool({ name: 'paid_stubborn', arguments: args, _meta: { 'x402/payment': payment } }) as Result;
      expect(paid.content?.[0]?.text).toBe(`stubborn: ${args.text}`);
      expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });
      expect(runs).toBe(2);
      expect(settlements() - before).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe('a paid tool that writes its answer to logs and progress while it runs', () => {
  test.each(['legacy', 'modern'] as const)('on the %s wire, sends neither before it is paid; the answer comes with the receipt', async (era) => {
    const client = await connected(era);
    try {
      const logs: unknown[] = [];
      client.setNotificationHandler('notifications/message', (n) => void logs.push(n.params.data));
      const args = { text: crypto.randomUUID() };
      const payment = await paymentFor(client, 'paid_chatty', args);
      // Logs at info: the 2025-11-25 wire's default; the 2026-07-28 wire asks for them in each request's _meta.
      const asksLogs = era === 'modern' ? { [META_LOG_LEVEL]: 'info' } : {};
      const seen: Array<string | undefined> = [];
      chain.revertSettlements(true);
      let refused: Result;
      try {
        refused = await client.callTool({ name: 'paid_chatty', arguments: args, _meta: { 'x402/payment': payment, ...asksLogs } },
          { onprogress: (p) => void seen.push(p.message) }) as Result;
      } finally {
        chain.revertSettlements(false);
      }
      expect(refused.structuredContent.error).toMatch(/^Payment settlement failed/);
      expect(seen).toEqual([HELD_PROGRESS_MESSAGE]);
      expect(JSON.stringify([logs, refused])).not.toContain(args.text);

      const another = await paymentFor(client, 'paid_chatty', args);
      const paid = await client.callTool({ name: 'paid_chatty', arguments: args, _meta: { 'x402/payment': another, ...asksLogs } }) as Result;
      expect(paid.content?.[0]?.text).toBe(`the answer is ${args.text}`);
      expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });
      expect(JSON.stringify(logs)).not.toContain(args.text);
    } finally {
      await client.close();
    }
  });
});
