/**
 * The `vercel.rpc.*` span attributes Vercel's MCP observability reads (docs/observability.md), as mcp-handler 2.4.0
 * sets them, on agent-mcp's spans: read with the OpenTelemetry SDK's in-memory exporter over real HTTP, on both wires,
 * for each message of a batch, for agent calls (a real upstream agent process, an in-process agent that asks) and
 * mounted tools (a real SDK server), anonymous and with real tokens.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { context, trace, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createMcpHandler } from '../../api/mcp.js';
import { agentDefinitions, type InProcessAgent } from '../../lib/agent/index.js';
import { createApp } from '../../lib/app.js';
import { createLimitsFromEnv } from '../../lib/limits/index.js';
import { createMounts, type Mounts } from '../../lib/mounts/index.js';
import { clientNameOf } from '../../lib/observe/vercel-rpc.js';
import { whoami } from '../support/mounts.js';
import { startDownstream, type Downstream } from '../support/downstream.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { startProtectedServer } from '../support/protected-app.js';
import { post, postModern } from '../support/rpc.js';
import { connectHttp, createV2Client } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

const spans = new InMemorySpanExporter();
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
const UA = (userAgent: string) => ({ ...LEGACY, 'user-agent': userAgent });

/** Asks the user a question before it answers. */
const asker: InProcessAgent = async function* ({ ask }) {
  const who = await ask.elicit({ message: 'Who?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
  yield `Hello ${String(who.content?.name)}`;
};

let upstream: Upstream;
let docs: Downstream;
let mounts: Mounts;
let issuer: TestIssuer;
let server: TestServer;
let guarded: TestServer;

beforeAll(async () => {
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  [upstream, docs, issuer] = await Promise.all([startUpstream(), startDownstream('docs'), startIssuer()]);
  const env = { AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'test-model', RATE_LIMIT_TOOLS: '{"whoami":"1/1h"}' };
  mounts = createMounts({ mounts: [{ name: 'docs', url: docs.url }], waitMs: 5_000 });
  server = await startTestServer(createMcpHandler(createApp({
    definitions: [agentDefinitions(env, [{ id: 'asker', name: 'Asker', description: 'Asks first.', reply: asker }]), { tools: [whoami] }],
    mounts,
    limits: createLimitsFromEnv(env, undefined),
    stateSecret: 'v'.repeat(32),
    origin: { local: true, allowedOrigins: new Set() },
  })));
  guarded = await startProtectedServer({ AUTH_ISSUER: issuer.issuer, AUTH_AUDIENCE: 'agent-mcp-test' });
});
afterAll(async () => {
  trace.disable();
  context.disable();
  vi.restoreAllMocks();
  await Promise.all([server?.close(), guarded?.close(), mounts?.close()]);
  await Promise.all([docs?.close(), issuer?.close()]);
  upstream?.stop();
});

/** The server spans ended since `spans.reset()`. */
const serverSpans = (): ReadableSpan[] => spans.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);
const only = (): ReadableSpan => {
  const found = serverSpans();
  expect(found).toHaveLength(1);
  return found[0]!;
};
const vercel = (span: ReadableSpan) => Object.fromEntries(Object.entries(span.attributes).filter(([key]) => key.startsWith('vercel.rpc.')));
const call = (id: number | string, name: string, args: Record<string, unknown> = {}) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('every MCP message span', () => {
  test('names the endpoint, the kind of client, whether it was authorized, and the outcome (2026-07-28 wire, official client)', async () => {
    const client = createV2Client('modern');
    await connectHttp(client, server.mcpUrl);
    spans.reset();
    await client.listTools();
    const span = only();
    expect(span.name).toBe('tools/list');
    // Node's fetch says `node` (an HTTP library), and the client's name (agent-mcp-tests) is none Vercel knows.
    expect(vercel(span)).toEqual({
      'vercel.rpc.route': 'mcp', 'vercel.rpc.client.name': 'http-library', 'vercel.rpc.auth.outcome': 'anonymous', 'vercel.rpc.outcome': 'success',
    });
    expect(span.attributes['mcp.protocol.version']).toBe('2026-07-28');
    await client.close();
  });

  test('with a verified token it is authorized, and a CIMD client id on a known host names the client', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.mint({
      iss: issuer.issuer, aud: 'agent-mcp-test', sub: 'alice', scope: 'agents:chat', client_id: 'https://claude.ai/oauth/mcp-oauth-client-metadata', iat: now, exp: now + 60,
    });
    spans.reset();
    const response = await post(guarded.mcpUrl, call(1, 'whoami'), { ...LEGACY, authorization: `Bearer ${token}` });
    expect(response.status).toBe(200);
    expect(vercel(only())).toEqual({
      'vercel.rpc.route': 'mcp', 'vercel.rpc.client.name': 'claude', 'vercel.rpc.auth.outcome': 'authorized', 'vercel.rpc.outcome': 'success',
    });
  });

  test('a request refused before its body is read (401) makes no MCP span, as in mcp-handler', async () => {
    spans.reset();
    expect((await post(guarded.mcpUrl, call(2, 'whoami'), LEGACY)).status).toBe(401);
    expect(serverSpans()).toEqual([]);
  });
});

describe('the kind of client', () => {
  test.each([
    ['its User-Agent', UA('Claude-User/1.0 (+https://claude.ai)'), 'claude'],
    ['its User-Agent', UA('openai-mcp/1.0.0'), 'chatgpt'],
    ['its User-Agent', UA('Cursor/1.7.0 (darwin arm64)'), 'cursor'],
    ['its User-Agent', UA('python-httpx/0.28.1'), 'http-library'],
    ['its User-Agent', UA('Mozilla/5.0 (X11; Linux x86_64)'), 'other'],
  ])('by %s: %j is %s', async (_clue, headers, expected) => {
    spans.reset();
    await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, headers);
    expect(only().attributes['vercel.rpc.client.name']).toBe(expected);
  });

  test('by the clientInfo of a legacy initialize', async () => {
    spans.reset();
    await post(server.mcpUrl, {
      jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'claude-code', version: '2.1.0' } },
    }, UA('node'));
    expect(only().attributes['vercel.rpc.client.name']).toBe('claude-code');
  });

  test('by the clientInfo in a 2026-07-28 request\'s _meta', async () => {
    spans.reset();
    await postModern(server.mcpUrl, 1, 'tools/list', {}, { meta: { 'io.modelcontextprotocol/clientInfo': { name: 'Visual Studio Code', version: '1.106' } } });
    expect(only().attributes['vercel.rpc.client.name']).toBe('vscode');
  });

  test('the User-Agent comes first, as in mcp-handler; a long one is read only so far; the answer is always one of the labels', () => {
    expect(clientNameOf({ userAgent: 'Cursor/1.7', clientInfoName: 'claude-code' })).toBe('cursor');
    expect(clientNameOf({ userAgent: `${'x'.repeat(300)} claude-code` })).toBe('other');
    expect(clientNameOf({ clientId: 'https://app.v0.dev/mcp/client.json' })).toBe('v0');
    expect(clientNameOf({ clientId: 'https://evil.example/claude.ai' })).toBe('other');
    expect(clientNameOf({ clientInfoName: 'claude-ai' })).toBe('claude');
  });
});

describe('the outcome', () => {
  test('an agent call that succeeds, and one whose upstream agent fails (api_error, as the tool reports it)', async () => {
    spans.reset();
    await post(server.mcpUrl, call(1, 'chat_with_agent', { agent_id: 'default', message: 'hello' }), LEGACY);
    const ok = only();
    expect(ok.name).toBe('tools/call chat_with_agent');
    expect(ok.attributes).toMatchObject({ 'vercel.rpc.outcome': 'success', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'chat_with_agent' });
    spans.reset();
    const failed = await (await post(server.mcpUrl, call(2, 'chat_with_agent', { agent_id: 'default', message: 'fault:500' }), LEGACY)).json();
    expect(failed.result.isError).toBe(true);
    expect(only().attributes).toMatchObject({ 'vercel.rpc.outcome': 'api_error', 'error.type': 'tool_error' });
  });

  test('an agent that asks the caller first is input_required on the 2026-07-28 wire', async () => {
    spans.reset();
    const reply = await (await postModern(server.mcpUrl, 3, 'tools/call', { name: 'chat_with_agent', arguments: { agent_id: 'asker', message: 'hi' } },
      { capabilities: { elicitation: {} } })).json();
    expect(reply.result.resultType).toBe('input_required');
    expect(only().attributes['vercel.rpc.outcome']).toBe('input_required');
  });

  test('a mounted tool: its result is success, its own failure execution_failure', async () => {
    spans.reset();
    await post(server.mcpUrl, call(4, 'docs.echo', { text: 'hi' }), LEGACY);
    expect(only()).toMatchObject({ name: 'tools/call docs.echo', attributes: { 'vercel.rpc.outcome': 'success' } });
    spans.reset();
    await post(server.mcpUrl, call(5, 'docs.fail'), LEGACY);
    expect(only().attributes['vercel.rpc.outcome']).toBe('execution_failure');
  });

  test('arguments that fail the schema, and a tool over its per-tool limit, are the caller\'s request errors', async () => {
    spans.reset();
    await post(server.mcpUrl, call(6, 'chat_with_agent', { message: 42 }), LEGACY);
    expect(only().attributes['vercel.rpc.outcome']).toBe('request_error');
    await post(server.mcpUrl, call(7, 'whoami'), LEGACY);
    spans.reset();
    const refused = await (await post(server.mcpUrl, call(8, 'whoami'), LEGACY)).json();
    expect(refused.result.isError).toBe(true);
    expect(only().attributes).toMatchObject({ 'vercel.rpc.outcome': 'request_error', 'gen_ai.tool.name': 'whoami' });
  });

  test('an unknown tool is a request error whose name stays off the span; an unknown method is `other`', async () => {
    spans.reset();
    const unknownTool = await (await post(server.mcpUrl, call(9, 'made-up-tool'), LEGACY)).json();
    const span = only();
    expect(span.name).toBe('tools/call');
    expect(span.attributes).toMatchObject({ 'vercel.rpc.outcome': 'request_error', 'rpc.response.status_code': String(unknownTool.error.code) });
    expect(span.attributes).not.toHaveProperty('gen_ai.tool.name');
    spans.reset();
    await postModern(server.mcpUrl, 10, 'made/up');
    expect(only()).toMatchObject({ name: 'other', attributes: { 'mcp.method.name': 'other', 'vercel.rpc.outcome': 'request_error', 'rpc.response.status_code': '-32601' } });
  });
});

describe('a 2025-03-26 batch', () => {
  test('has a span per message, each with its own outcome, request id and trace parent', async () => {
    const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    spans.reset();
    const response = await post(server.mcpUrl, [
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      call('b', 'docs.echo', { text: 'batched' }),
      { jsonrpc: '2.0', id: 'c', method: 'no/such' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ], { 'mcp-protocol-version': '2025-03-26', traceparent: parent, 'user-agent': 'Cursor/1.7' });
    expect(response.status).toBe(200);
    const byName = Object.fromEntries(serverSpans().map((s) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual(['notifications/initialized', 'other', 'ping', 'tools/call docs.echo']);
    expect(byName.ping!.attributes).toMatchObject({ 'jsonrpc.request.id': 'a', 'vercel.rpc.outcome': 'success', 'vercel.rpc.client.name': 'cursor' });
    expect(byName['tools/call docs.echo']!.attributes).toMatchObject({ 'jsonrpc.request.id': 'b', 'vercel.rpc.outcome': 'success' });
    expect(byName.other!.attributes).toMatchObject({ 'jsonrpc.request.id': 'c', 'vercel.rpc.outcome': 'request_error' });
    expect(byName['notifications/initialized']!.attributes['vercel.rpc.outcome']).toBe('success');
    for (const span of serverSpans()) {
      expect(span.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
      expect(span.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    }
    // The mounted server's call is the child of its own message's span.
    const forwarded = docs.metas.filter((m) => m.method === 'tools/call').at(-1);
    expect(String(forwarded?.meta?.traceparent).split('-')[2]).toBe(byName['tools/call docs.echo']!.spanContext().spanId);
  });
});
