/**
 * The official v1 SDK client (`@modelcontextprotocol/sdk` 1.x) over real loopback HTTP: the client most
 * deployed hosts still run. It speaks the legacy wire only.
 */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createConformanceHandler } from '../fixtures/conformance-handler.js';
import { LEGACY_VERSION, firstText, isClientAnswer, recordTraffic } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('the v1 SDK client', () => {
  const traffic = recordTraffic(createConformanceHandler());
  let server: TestServer;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  const elicitations: unknown[] = [];
  const transportErrors: Error[] = [];

  beforeAll(async () => {
    server = await startTestServer(traffic.handler);
    client = new Client({ name: 'agent-mcp-tests-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.push(request.params);
      return { action: 'accept', content: { username: 'grace', email: 'grace@example.com' } };
    });
    transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl));
    transport.onerror = (error) => transportErrors.push(error);
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  test('a v1 client connects at 2025-11-25 and keeps the session id the server issued', () => {
    expect(client.getServerVersion()?.name).toBe('agent-mcp');
    expect(transport.protocolVersion).toBe(LEGACY_VERSION);
    expect(transport.sessionId).toMatch(/^[\x21-\x7E]+$/);
  });

  test('a v1 client lists tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['chat_with_agent', 'test_simple_text', 'test_elicitation']));
  });

  test('a v1 client calls a tool and receives its progress in increasing order', async () => {
    const progress: Array<{ progress: number; total?: number }> = [];
    const result = await client.callTool({ name: 'test_tool_with_progress' }, undefined, { onprogress: (p) => progress.push(p) });
    expect(firstText(result)).toBe('Progress tool completed');
    expect(progress.map((p) => p.progress)).toEqual([0, 50, 100]);
    expect(progress.every((p) => p.total === 100)).toBe(true);
  });

  test('a v1 client answers an elicitation and the tool receives the answer', async () => {
    const mark = traffic.exchanges.length;
    const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    expect(elicitations).toHaveLength(1);
    expect(elicitations[0]).toMatchObject({ message: 'Who are you?' });
    expect(result.isError).toBeFalsy();
    expect(firstText(result)).toContain('action=accept');
    expect(firstText(result)).toContain('"username":"grace"');
    expect(firstText(result)).toContain('"email":"grace@example.com"');
    const exchanges = traffic.since(mark);
    expect(exchanges.find((e) => e.body?.method === 'tools/call')?.contentType).toMatch(/^text\/event-stream/);
    expect(exchanges.filter(isClientAnswer)).toHaveLength(1);
  });

  test('every request after initialize carried the issued Mcp-Session-Id, and the transport reported no error', () => {
    expect(traffic.exchanges.length).toBeGreaterThan(4);
    const [initialize, ...rest] = traffic.exchanges;
    expect(initialize!.requestHeaders.get('mcp-session-id')).toBeNull();
    expect(initialize!.responseHeaders?.get('mcp-session-id')).toBe(transport.sessionId);
    for (const exchange of rest) expect(exchange.requestHeaders.get('mcp-session-id')).toBe(transport.sessionId);
    expect(transportErrors).toEqual([]);
  });
});
