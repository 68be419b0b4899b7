/**
 * A paid chat call that outlives its reply deadline (issue 28; docs/agents.md "Slow agents"): the payment pays for the
 * run, not for each collection. It is verified before the run starts and settled once, when the run has answered; the
 * calls that collect it pay nothing, and the whole reply comes with the receipt. Real signatures and facilitator logic
 * behind a fake chain, the official SDK client, a scripted slow upstream.
 */

import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp, defaultDefinitions } from '../../lib/app.js';
import { connectHttp, createV2Client } from '../support/sdk.js';
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
