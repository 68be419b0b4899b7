/**
 * What a call's agents spent, where the operator looks (docs/observability.md; rule 17): the request's log line and
 * its OpenTelemetry server span (`gen_ai.usage.*` of the GenAI conventions), over real HTTP with the official MCP
 * client and the real upstream agent process, which reports its usage when asked (`stream_options.include_usage`).
 */

import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { context, trace, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp } from '../../lib/app.js';
import { captureRequestLines } from '../support/request-lines.js';
import { post } from '../support/rpc.js';
import { MODERN_VERSION, type Era } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

let upstream: Upstream;
let server: TestServer;
let lines: Array<Record<string, unknown>>;

beforeAll(async () => {
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
  upstream = await startUpstream();
  server = await startTestServer(createMcpHandler(createDefaultApp({ AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'test-model' })));
});
afterAll(async () => {
  trace.disable();
  context.disable();
  vi.restoreAllMocks();
  await server?.close();
  upstream?.stop();
});

/** Captures the request lines the server writes to stdout, parsed. */
function capture(): void {
  lines = captureRequestLines();
}
afterEach(() => {
  vi.mocked(process.stdout.write).mockRestore?.();
});

async function connect(era: Era): Promise<Client> {
  const client = new Client({ name: 'usage-test', version: '1.0.0' }, { versionNegotiation: { mode: era === 'modern' ? { pin: MODERN_VERSION } : 'legacy' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
  return client;
}

async function chatLine(era: Era, message: string): Promise<Record<string, unknown>> {
  capture();
  const client = await connect(era);
  const result = await client.callTool({ name: 'chat_with_agent', arguments: { message } });
  expect(result.isError).toBeFalsy();
  await vi.waitFor(() => expect(lines.find((l) => l.method === 'tools/call')).toBeDefined());
  await client.close();
  return lines.find((l) => l.method === 'tools/call')!;
}

describe.each(['modern', 'legacy'] as const)('the request log line on the %s wire', (era) => {
  test('a chat call says its model requests and the tokens its upstream reported', async () => {
    const line = await chatLine(era, `log my usage on ${era}`);
    // The stand-in reports 100 prompt tokens for the one message sent and 20 completion tokens.
    expect(line).toMatchObject({ model_requests: 1, input_tokens: 100, output_tokens: 20, cached_input_tokens: 0, cache_write_tokens: 0 });
    expect(line).not.toHaveProperty('unknown_requests');
  });

  test('an upstream that reports nothing: the tokens are "unknown", never 0', async () => {
    const line = await chatLine(era, `fault:no-usage on ${era}`);
    expect(line).toMatchObject({ model_requests: 1, input_tokens: 'unknown', output_tokens: 'unknown' });
  });

  test('a call that runs no agent says nothing of tokens', async () => {
    capture();
    const client = await connect(era);
    await client.listTools();
    await vi.waitFor(() => expect(lines.find((l) => l.method === 'tools/list')).toBeDefined());
    await client.close();
    expect(lines.find((l) => l.method === 'tools/list')).not.toHaveProperty('model_requests');
  });
});

describe('a 2025-03-26 batch', () => {
  test('the line sums its messages\' usage; each message\'s result says its own', async () => {
    capture();
    const call = (id: number, message: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message } } });
    const init = await post(server.mcpUrl, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'b', version: '1' } } });
    const session = init.headers.get('mcp-session-id');
    const reply = await post(server.mcpUrl, [call(1, 'batch one'), call(2, 'fault:no-usage batch two')], {
      'mcp-protocol-version': '2025-03-26', ...(session ? { 'mcp-session-id': session } : {}),
    });
    const replies = (await reply.json()) as Array<{ id: number; result: { _meta?: Record<string, { modelRequests: number; unknownRequests: number; input: number }> } }>;
    const metaOf = (id: number) => Object.values(replies.find((r) => r.id === id)!.result._meta ?? {})[0];
    expect(metaOf(1)).toMatchObject({ modelRequests: 1, unknownRequests: 0, input: 100 });
    expect(metaOf(2)).toMatchObject({ modelRequests: 1, unknownRequests: 1, input: 0 });
    await vi.waitFor(() => expect(lines.find((l) => l.method === 'batch')).toBeDefined());
    expect(lines.find((l) => l.method === 'batch')).toMatchObject({ model_requests: 2, input_tokens: 100, output_tokens: 20, unknown_requests: 1 });
  });
});

describe('the span, with the OpenTelemetry SDK registered', () => {
  const spans = new InMemorySpanExporter();
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  });

  async function spanOf(message: string) {
    const client = await connect('modern');
    spans.reset();
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { message } });
    expect(result.isError).toBeFalsy();
    await client.close();
    const found = spans.getFinishedSpans().filter((s) => s.name === 'tools/call chat_with_agent' && s.kind === SpanKind.SERVER);
    expect(found).toHaveLength(1);
    return found[0]!;
  }

  test('the tools/call span carries gen_ai.usage.input_tokens and output_tokens', async () => {
    const span = await spanOf('trace my usage');
    expect(span.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 20 });
  });

  test('usage the upstream did not report is left off the span, not written as 0', async () => {
    const span = await spanOf('fault:no-usage traced');
    expect(span.attributes).not.toHaveProperty('gen_ai.usage.input_tokens');
    expect(span.attributes).not.toHaveProperty('gen_ai.usage.output_tokens');
  });
});
