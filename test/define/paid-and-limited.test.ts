/**
 * A deployment's own tool marked `paid` is behind x402 like chat_with_agent (fake chain; real signatures and
 * facilitator logic over loopback HTTP), and its calls count against the HTTP rate limits.
 */

import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import type { Client } from '@modelcontextprotocol/client';
import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp } from '../../lib/app.js';
import { defineTool } from '../../lib/define/index.js';
import { RATE_LIMITED } from '../../lib/protocol/errors.js';
import { connectHttp, createV2Client, firstText, type Era } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { post } from '../support/rpc.js';
import { createFakeChain, serveFacilitator } from '../support/x402-chain.js';
import { createPayer } from '../support/x402-payer.js';

const PAY_TO = '0x3333333333333333333333333333333333333333';
const report = defineTool({
  name: 'report.make',
  description: 'Makes a report.',
  input: z.object({ about: z.string() }),
  output: z.object({ report: z.string() }),
  paid: true,
  run: ({ about }) => ({ structuredContent: { report: `all about ${about}` } }),
});

let facilitator: Awaited<ReturnType<typeof serveFacilitator>>;
let paidServer: TestServer;
let client: Client | undefined;
beforeAll(async () => {
  facilitator = await serveFacilitator(createFakeChain().facilitator);
  paidServer = await startTestServer(createMcpHandler(createDefaultApp(
    { X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitator.url, MCP_LOG: 'off' }, { tools: [report] })));
});
afterAll(async () => {
  await paidServer?.close();
  await facilitator?.close();
});
afterEach(async () => { await client?.close(); client = undefined; });

describe.each<Era>(['legacy', 'modern'])('a paid tool of the deployment, %s wire', (era) => {
  test('is listed with its price; an unpaid call gets PaymentRequired, a paid one the result and a receipt', async () => {
    client = createV2Client(era);
    await connectHttp(client, paidServer.mcpUrl);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'report.make')?._meta?.['x402/price']).toMatchObject({ price: '$0.01', payTo: PAY_TO });
    const unpaid = await client.callTool({ name: 'report.make', arguments: { about: 'tides' } });
    expect(unpaid.isError).toBe(true);
    expect(unpaid.structuredContent).toMatchObject({ x402Version: 2, accepts: [expect.objectContaining({ payTo: PAY_TO })] });
    const payment = await createPayer().pay(unpaid.structuredContent as never);
    const paid = await client.callTool({ name: 'report.make', arguments: { about: 'tides' }, _meta: { 'x402/payment': payment } });
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent).toEqual({ report: 'all about tides' });
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });
  });
});

describe('rate limits', () => {
  test('calls of a deployment\'s own tool count against RATE_LIMIT_IP: over it, 429 and the rate-limit error', async () => {
    const free = defineTool({ name: 'ping', description: 'Pong.', input: z.object({}), run: () => 'pong' });
    const server = await startTestServer(createMcpHandler(createDefaultApp({ RATE_LIMIT_IP: '2/1m', MCP_LOG: 'off' }, { tools: [free] })));
    try {
      const call = (id: number) => post(server.mcpUrl, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ping', arguments: {} } },
        { 'mcp-protocol-version': '2025-03-26' });
      for (const id of [1, 2]) {
        const response = await call(id);
        expect(response.status).toBe(200);
        expect(firstText((await response.json()).result)).toBe('pong');
      }
      const over = await call(3);
      expect(over.status).toBe(429);
      expect((await over.json()).error).toMatchObject({ code: RATE_LIMITED });
    } finally {
      await server.close();
    }
  });
});
