/**
 * The usage counters of paid calls (issue 46): a call refused for want of a payment is a refusal under `payment`, and a
 * settled payment's amount is counted as earned, for the call's agent. Real signatures and facilitator logic behind a
 * fake chain, the official SDK client, the scripted upstream.
 */

import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp, defaultDefinitions, type App } from '../../lib/app.js';
import { readUsage } from '../../lib/usage/read.js';
import { connectHttp, createV2Client } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';
import { createFakeChain, serveFacilitator } from '../support/x402-chain.js';
import { createPayer } from '../support/x402-payer.js';

const PAY_TO = '0x2222222222222222222222222222222222222222';
let facilitator: Awaited<ReturnType<typeof serveFacilitator>>;
let upstream: Upstream;
let app: App;
let server: TestServer;
let client: Client;

beforeAll(async () => {
  [facilitator, upstream] = await Promise.all([serveFacilitator(createFakeChain().facilitator), startUpstream()]);
  app = createApp({
    definitions: defaultDefinitions({ X402_PAY_TO: PAY_TO, X402_PRICE: '$0.0125', X402_FACILITATOR_URL: facilitator.url, AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'test-model' }),
    origin: { local: true, allowedOrigins: new Set() },
    stateSecret: 'x'.repeat(32),
    usage: { trustForwarded: false },
  });
  server = await startTestServer(createMcpHandler(app));
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

describe('usage counters of paid calls', () => {
  test('an unpaid call is a payment refusal; a settled one earns its price for its agent', async () => {
    const call = (meta?: Record<string, unknown>) =>
      client.callTool({ name: 'chat_with_agent', arguments: { message: 'hello' }, ...(meta ? { _meta: meta } : {}) }) as Promise<Result>;
    const unpaid = await call();
    expect(unpaid.isError).toBe(true);
    const paid = await call({ 'x402/payment': await createPayer().pay(unpaid.structuredContent) });
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });
    // The counters are written beside each reply, after it.
    await app.usage!.settled();
    const view = await readUsage(app.store, 'hour');
    expect(view.refusals).toEqual({ payment: 1 });
    expect(view.totals).toMatchObject({ calls: 1, errors: 0, refusals: 1, earnedUsd: '0.0125' });
    expect(view.earnings).toEqual([{ agent: view.series[0]!.agent, usd: '0.0125', paidCalls: 1 }]);
  });
});
