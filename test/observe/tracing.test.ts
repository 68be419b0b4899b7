/**
 * OpenTelemetry per the MCP semantic conventions, with the real SDK (in-memory exporters) over real HTTP: the
 * official MCP client sends a W3C traceparent, the chat call reaches the real upstream agent process, and all
 * three share one trace. Before the SDK is registered, nothing is traced and the client's context passes through.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { context, metrics, trace, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { InMemoryMetricExporter, AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp } from '../../lib/app.js';
import { post } from '../support/rpc.js';
import { MODERN_VERSION, type Era } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startDownstream } from '../support/downstream.js';
import { startMountedApp } from '../support/mounts.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

let upstream: Upstream;
let server: TestServer;

beforeAll(async () => {
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
  upstream = await startUpstream();
  server = await startTestServer(createMcpHandler(createDefaultApp({ AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'test-model', MCP_LOG: 'off' })));
});
afterAll(async () => {
  trace.disable();
  context.disable();
  metrics.disable();
  vi.restoreAllMocks();
  await server?.close();
  upstream?.stop();
});

const traceparentOf = (span: Span) => {
  const { traceId, spanId } = span.spanContext();
  return `00-${traceId}-${spanId}-01`;
};
const parts = (traceparent: string | undefined) => {
  const [, traceId, parentId] = (traceparent ?? '').split('-');
  return { traceId, parentId };
};

async function connect(era: Era, headers: Record<string, string>): Promise<Client> {
  const client = new Client(
    { name: 'trace-test', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: MODERN_VERSION } : 'legacy' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers } }));
  return client;
}

const chat = (id: number, message: string, meta?: Record<string, string>) => ({
  jsonrpc: '2.0', id, method: 'tools/call',
  params: { name: 'chat_with_agent', arguments: { message }, ...(meta ? { _meta: meta } : {}) },
});

describe('without an OpenTelemetry SDK', () => {
  test('the client\'s traceparent reaches the upstream agent unchanged, and nothing is traced', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const message = 'untraced hello';
    const response = await post(server.mcpUrl, chat(1, message), { 'mcp-protocol-version': '2025-11-25', traceparent });
    expect(response.status).toBe(200);
    const [seen] = await upstream.requestsFor(message);
    expect(seen?.traceparent).toBe(traceparent);
  });
});

describe('with the OpenTelemetry SDK registered', () => {
  const spans = new InMemorySpanExporter();
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
  const clientTracer = () => trace.getTracer('the-client');

  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  });

  const serverSpan = (name: string): ReadableSpan => {
    const found = spans.getFinishedSpans().filter((s) => s.name === name && s.kind === SpanKind.SERVER);
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  test('one trace runs client → agent-mcp → agent: the server span is the client span\'s child and the upstream\'s parent', async () => {
    const clientSpan = clientTracer().startSpan('client call');
    const client = await connect('modern', { traceparent: traceparentOf(clientSpan) });
    spans.reset();
    const message = 'traced hello';
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { message } });
    expect(result.isError).toBeFalsy();
    await client.close();
    clientSpan.end();

    const span = serverSpan('tools/call chat_with_agent');
    const { traceId, spanId } = clientSpan.spanContext();
    expect(span.spanContext().traceId).toBe(traceId);
    expect(span.parentSpanContext?.spanId).toBe(spanId);
    expect(span.parentSpanContext?.isRemote).toBe(true);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'chat_with_agent',
      'mcp.protocol.version': MODERN_VERSION,
      'jsonrpc.request.id': expect.any(String),
    });
    expect(span.attributes).not.toHaveProperty('error.type');

    const [seen] = await upstream.requestsFor(message);
    expect(parts(seen?.traceparent)).toEqual({ traceId, parentId: span.spanContext().spanId });
  });

  test('a mounted server gets the trace context in params._meta, with the server span as parent', async () => {
    const downstream = await startDownstream('docs');
    const mounted = startMountedApp([{ name: 'docs', url: downstream.url }], { waitMs: 5_000 });
    try {
      const { mcpUrl } = await mounted.http();
      const clientSpan = clientTracer().startSpan('client call');
      spans.reset();
      const response = await post(mcpUrl, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'docs.echo', arguments: { text: 'hi' } } },
        { 'mcp-protocol-version': '2025-11-25', traceparent: traceparentOf(clientSpan) });
      expect((await response.json()).result.isError).toBeFalsy();

      const span = serverSpan('tools/call docs.echo');
      const call = downstream.metas.find((m) => m.method === 'tools/call');
      expect(parts(call?.meta?.traceparent as string)).toEqual({ traceId: clientSpan.spanContext().traceId, parentId: span.spanContext().spanId });
    } finally {
      await mounted.close();
      await downstream.close();
    }
  });

  test('a traceparent in params._meta wins over the HTTP header (legacy wire)', async () => {
    const header = clientTracer().startSpan('transport');
    const perMessage = clientTracer().startSpan('the message');
    spans.reset();
    const message = 'meta hello';
    const response = await post(server.mcpUrl, chat(2, message, { traceparent: traceparentOf(perMessage) }),
      { 'mcp-protocol-version': '2025-11-25', traceparent: traceparentOf(header) });
    expect(response.status).toBe(200);

    const span = serverSpan('tools/call chat_with_agent');
    expect(span.spanContext().traceId).toBe(perMessage.spanContext().traceId);
    expect(span.parentSpanContext?.spanId).toBe(perMessage.spanContext().spanId);
    expect(span.attributes['jsonrpc.request.id']).toBe('2');
    const [seen] = await upstream.requestsFor(message);
    expect(parts(seen?.traceparent).traceId).toBe(perMessage.spanContext().traceId);
  });

  test('a failing tool is error.type tool_error, a JSON-RPC error its code; both count in mcp.server.operation.duration, a method the server does not know as `other`', async () => {
    spans.reset();
    await post(server.mcpUrl, chat(3, 'fault:500'), { 'mcp-protocol-version': '2025-11-25' });
    const failed = serverSpan('tools/call chat_with_agent');
    expect(failed.attributes['error.type']).toBe('tool_error');
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed.parentSpanContext).toBeUndefined();

    const unknown = await (await post(server.mcpUrl, { jsonrpc: '2.0', id: 4, method: 'no/such' }, { 'mcp-protocol-version': '2025-11-25' })).json();
    expect(serverSpan('other').attributes['error.type']).toBe(String(unknown.error.code));

    await reader.forceFlush();
    const metric = metricExporter.getMetrics().flatMap((m) => m.scopeMetrics).flatMap((s) => s.metrics)
      .filter((m) => m.descriptor.name === 'mcp.server.operation.duration').at(-1);
    expect(metric?.descriptor.unit).toBe('s');
    const points = metric!.dataPoints;
    expect(points.some((p) => p.attributes['mcp.method.name'] === 'tools/call' && p.attributes['error.type'] === 'tool_error')).toBe(true);
    expect(points.some((p) => p.attributes['mcp.method.name'] === 'other' && p.attributes['error.type'] === String(unknown.error.code))).toBe(true);
    expect(points.every((p) => p.attributes['mcp.method.name'] !== 'no/such')).toBe(true);
    expect(points.every((p) => !('jsonrpc.request.id' in p.attributes))).toBe(true);
  });
});
