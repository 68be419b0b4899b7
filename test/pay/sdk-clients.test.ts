/**
 * The paid agent tool with the official SDK clients (fake chain; real signatures and facilitator logic).
 * SDK v1 matters most: @x402/mcp's client is built on it, and it validates structuredContent against a tool's
 * outputSchema even on isError results.
 */

import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp, defaultDefinitions } from '../../lib/app.js';
import { connectHttp, createV2Client } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createFakeChain, serveFacilitator, type FakeChain } from '../support/x402-chain.js';
import { createPayer } from '../support/x402-payer.js';

const PAY_TO = '0x2222222222222222222222222222222222222222';
let chain: FakeChain;
let facilitator: Awaited<ReturnType<typeof serveFacilitator>>;
let server: TestServer;

beforeAll(async () => {
  chain = createFakeChain();
  facilitator = await serveFacilitator(chain.facilitator);
  server = await startTestServer(createMcpHandler(createApp({
    definitions: defaultDefinitions({ X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitator.url }),
    origin: { local: true, allowedOrigins: new Set() },
    stateSecret: 'x'.repeat(32),
  })));
});
afterAll(async () => {
  await server?.close();
  await facilitator?.close();
});

describe('paying for chat_with_agent with the official SDK clients (fake chain)', () => {
  test('SDK v1: after tools/list, an unpaid call yields the PaymentRequired; the paid retry gets the reply and a receipt', async () => {
    const client = new ClientV1({ name: 'x402-v1', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(server.mcpUrl)));
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'chat_with_agent')?._meta?.['x402/price']).toMatchObject({ price: '$0.01', payTo: PAY_TO });
      const unpaid = await client.callTool({ name: 'chat_with_agent', arguments: { message: 'hello' } });
      expect(unpaid.isError).toBe(true);
      const payer = createPayer();
      const payment = await payer.pay(unpaid.structuredContent as never);
      const paid = await client.callTool({ name: 'chat_with_agent', arguments: { message: 'hello' }, _meta: { 'x402/payment': payment } });
      expect(paid.isError).toBeFalsy();
      expect(paid.structuredContent).toMatchObject({ agent_id: 'demo', reply: expect.stringContaining('hello') });
      expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true, payer: payer.address });
    } finally {
      await client.close();
    }
  });

  test('SDK v2 (modern wire): the same flow', async () => {
    const client = createV2Client('modern');
    await connectHttp(client, server.mcpUrl);
    try {
      await client.listTools();
      const unpaid = await client.callTool({ name: 'chat_with_agent', arguments: { message: 'modern hello' } });
      expect(unpaid.isError).toBe(true);
      const payment = await createPayer().pay(unpaid.structuredContent as never);
      const paid = await client.callTool({ name: 'chat_with_agent', arguments: { message: 'modern hello' }, _meta: { 'x402/payment': payment } });
      expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });
      expect(paid.structuredContent).toMatchObject({ reply: expect.stringContaining('modern hello') });
    } finally {
      await client.close();
    }
  });
});
