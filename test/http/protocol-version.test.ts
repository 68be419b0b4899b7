/**
 * Every reply names the protocol version it speaks in `MCP-Protocol-Version` (lib/http/protocol-version.ts):
 * the negotiated version for `initialize`, the request's version for other legacy traffic, 2026-07-28 on the
 * modern wire, refusals included where the request's version is one we serve. Real HTTP, official SDK clients.
 */

import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp } from '../../lib/app.js';
import { DEFAULT_REQUEST_BOUNDS } from '../../lib/http/bounds.js';
import { createConformanceHandler } from '../fixtures/conformance-handler.js';
import { post, postModern } from '../support/rpc.js';
import { LEGACY_VERSION, MODERN_VERSION, connectHttp, createV2Client, recordTraffic } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';

const traffic = recordTraffic(createConformanceHandler());
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(traffic.handler);
});
afterAll(() => server?.close());

const versionOf = (response: Response) => response.headers.get('mcp-protocol-version');
const init = (protocolVersion: string) => ({
  jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

describe('the official clients see the version on every reply', () => {
  test('a v1 SDK client: initialize (sent without the header) answers the negotiated version, and so does every later reply', async () => {
    const mark = traffic.exchanges.length;
    const client = new V1Client({ name: 'v1', version: '1' });
    await client.connect(new V1Transport(new URL(server.mcpUrl)));
    await client.callTool({ name: 'test_simple_text' });
    await client.callTool({ name: 'test_tool_with_logging' }); // streams its log lines: an SSE reply
    await expect(client.callTool({ name: 'no_such_tool' })).rejects.toThrow();
    await client.close();
    const seen = traffic.since(mark);
    expect(seen.map((e) => e.body.method)).toEqual(['initialize', 'notifications/initialized', 'tools/call', 'tools/call', 'tools/call']);
    expect(seen[0]!.requestHeaders.get('mcp-protocol-version')).toBeNull();
    expect(seen.map((e) => [e.status, e.responseHeaders!.get('mcp-protocol-version')])).toEqual([
      [200, LEGACY_VERSION], [202, LEGACY_VERSION], [200, LEGACY_VERSION], [200, LEGACY_VERSION], [200, LEGACY_VERSION],
    ]);
    expect(seen[3]!.contentType).toMatch(/^text\/event-stream/);
  });

  test('a v2 SDK client pinned to the modern wire gets 2026-07-28 on discovery, results, streams and errors', async () => {
    const mark = traffic.exchanges.length;
    const client = createV2Client('modern');
    await connectHttp(client, server.mcpUrl);
    await client.callTool({ name: 'test_simple_text' });
    await client.callTool({ name: 'test_tool_with_progress' }, { onprogress: () => undefined }); // an SSE reply
    await expect(client.callTool({ name: 'no_such_tool' })).rejects.toThrow();
    await client.close();
    const seen = traffic.since(mark);
    expect(seen.length).toBeGreaterThanOrEqual(4);
    expect(seen.map((e) => e.body.method)).toContain('server/discover');
    expect(seen.some((e) => e.contentType?.startsWith('text/event-stream'))).toBe(true);
    expect(seen.some((e) => e.status !== 200 || e.body.params?.name === 'no_such_tool')).toBe(true);
    for (const exchange of seen) expect(exchange.responseHeaders!.get('mcp-protocol-version')).toBe(MODERN_VERSION);
  });
});

describe('which version a reply names', () => {
  test.each([
    ['2025-06-18', '2025-06-18'],
    ['2024-11-05', '2024-11-05'],
    ['1999-01-01', LEGACY_VERSION],
  ])('initialize asking for %s answers, in the header as in the result, %s', async (asked, answered) => {
    const response = await post(server.mcpUrl, init(asked));
    expect(versionOf(response)).toBe(answered);
    expect((await response.json()).result.protocolVersion).toBe(answered);
  });

  test('a legacy request without the header speaks the assumed 2025-03-26, and a batch its version', async () => {
    expect(versionOf(await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }))).toBe('2025-03-26');
    const batch = await post(server.mcpUrl, [{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 2, method: 'ping' }],
      { 'mcp-protocol-version': '2025-03-26' });
    expect(batch.status).toBe(200);
    expect(versionOf(batch)).toBe('2025-03-26');
  });

  test('a refusal names the request\'s version when we serve it (modern header mismatch, batch in 2025-06-18, oversized batch), never one we do not', async () => {
    const mismatch = await postModern(server.mcpUrl, 1, 'tools/list', {}, { headers: { 'mcp-method': 'ping' } });
    expect([mismatch.status, versionOf(mismatch)]).toEqual([400, MODERN_VERSION]);
    const notInThisVersion = await post(server.mcpUrl, [{ jsonrpc: '2.0', id: 1, method: 'ping' }], { 'mcp-protocol-version': '2025-06-18' });
    expect([notInThisVersion.status, versionOf(notInThisVersion)]).toEqual([400, '2025-06-18']);
    const small = await startTestServer(createMcpHandler(createApp({ definitions: [], origin: { local: true, allowedOrigins: new Set() } }), { ...DEFAULT_REQUEST_BOUNDS, maxBodyBytes: 1 << 20, maxBatch: 2 }));
    try {
      const pings = [1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'ping' }));
      const oversized = await post(small.mcpUrl, pings, { 'mcp-protocol-version': '2025-03-26' });
      expect([oversized.status, versionOf(oversized)]).toEqual([400, '2025-03-26']);
    } finally {
      await small.close();
    }
    const unserved = await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-protocol-version': '1999-01-01' });
    expect([unserved.status, versionOf(unserved)]).toEqual([400, null]);
  });

  test('a browser client may read the header: it is exposed by CORS on the reply', async () => {
    const origin = new URL(server.url).origin;
    const response = await post(server.mcpUrl, init('2025-11-25'), { origin });
    expect(response.headers.get('access-control-allow-origin')).toBe(origin);
    const exposed = response.headers.get('access-control-expose-headers')!.split(',').map((h) => h.trim().toLowerCase());
    expect(exposed).toContain('mcp-protocol-version');
    expect(versionOf(response)).toBe('2025-11-25');
  });
});
