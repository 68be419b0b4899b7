/**
 * The official v2 client (`@modelcontextprotocol/client`) pinned to the 2026-07-28 wire: `server/discover`,
 * per-request `_meta`, MRTR (`input_required`) rounds, cancellation by closing the response stream.
 */

import {
  MissingRequiredClientCapabilityError, ProtocolErrorCode, ResourceNotFoundError, type Client,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp } from '../../lib/app.js';
import { createConformanceHandler } from '../fixtures/conformance-handler.js';
import { WAIT_FOR_CANCEL, cancellationProbe } from '../support/cancellation.js';
import {
  MODERN_VERSION, answerElicitation, connectHttp, createV2Client, firstText, isClientAnswer, methodsOf, recordTraffic,
} from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Answers each MRTR elicitation by the property its schema asks for. */
const ANSWERS: Record<string, string> = { name: 'Ada', color: 'teal' };

describe('the v2 SDK client on the 2026-07-28 wire', () => {
  const traffic = recordTraffic(createConformanceHandler());
  let server: TestServer;
  let client: Client;
  let elicitations: any[];

  beforeAll(async () => {
    server = await startTestServer(traffic.handler);
    // Elicitation only: the missing-capability test relies on sampling being undeclared.
    client = createV2Client('modern', { elicitation: {} });
    elicitations = answerElicitation(client, (params) => {
      const [property] = Object.keys(params.requestedSchema?.properties ?? {});
      return { [property!]: ANSWERS[property!] ?? 'unknown' };
    });
    await connectHttp(client, server.mcpUrl);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  test('a pinned client negotiates the modern era through server/discover, never initialize', () => {
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_VERSION);
    expect(client.getServerVersion()?.name).toBe('agent-mcp');
    const methods = methodsOf(traffic.exchanges);
    expect(methods[0]).toBe('server/discover');
    expect(methods).not.toContain('initialize');
  });

  test('a modern client lists tools and calls one', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['chat_with_agent', 'test_simple_text']));
    const result = await client.callTool({ name: 'test_simple_text' });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
  });

  test('every modern request carries the protocol version in _meta', () => {
    const requests = traffic.exchanges.filter((e) => e.body?.method !== undefined && 'id' in e.body);
    expect(requests.length).toBeGreaterThan(0);
    for (const { body } of requests) {
      expect(body.params?._meta?.['io.modelcontextprotocol/protocolVersion']).toBe(MODERN_VERSION);
    }
  });

  test('progress notifications reach the onprogress callback in increasing order', async () => {
    const progress: Array<{ progress: number; total?: number }> = [];
    const result = await client.callTool({ name: 'test_tool_with_progress' }, { onprogress: (p) => progress.push(p) });
    expect(firstText(result)).toBe('Progress tool completed');
    expect(progress.map((p) => p.progress)).toEqual([0, 50, 100]);
  });

  test('the client fulfils an input_required elicitation round and retries to a complete result', async () => {
    const mark = traffic.exchanges.length;
    const asked = elicitations.length;
    const result = await client.callTool({ name: 'test_input_required_result_elicitation' });

    expect(result.isError).toBeFalsy();
    expect(firstText(result)).toBe('Hello, Ada!');
    expect(elicitations.slice(asked).map((p) => p.message)).toEqual(['What is your name?']);
    const exchanges = traffic.since(mark);
    const calls = exchanges.filter((e) => e.body?.method === 'tools/call');
    expect(calls).toHaveLength(2);
    expect(calls[0]!.body.params.requestState).toBeUndefined();
    expect(calls[1]!.body.params.inputResponses).toMatchObject({ user_name: { action: 'accept', content: { name: 'Ada' } } });
    expect(typeof calls[1]!.body.params.requestState).toBe('string');
    // No server→client request and no client answer POST on the modern wire.
    expect(exchanges.filter(isClientAnswer)).toHaveLength(0);
  });

  test('a multi-round tool carries its first answer through requestState into the second round', async () => {
    const mark = traffic.exchanges.length;
    const asked = elicitations.length;
    const result = await client.callTool({ name: 'test_input_required_result_multi_round' });

    expect(firstText(result)).toBe('Ada likes teal.');
    expect(elicitations.slice(asked).map((p) => p.message)).toEqual([
      'Step 1: What is your name?',
      'Step 2: What is your favorite color?',
    ]);
    expect(traffic.since(mark).filter((e) => e.body?.method === 'tools/call')).toHaveLength(3);
  });

  test('a tool needing an undeclared capability is error -32021 naming it', async () => {
    const call = client.callTool({ name: 'test_missing_capability' });
    await expect(call).rejects.toBeInstanceOf(MissingRequiredClientCapabilityError);
    await expect(call).rejects.toMatchObject({
      code: ProtocolErrorCode.MissingRequiredClientCapability,
      data: { requiredCapabilities: { sampling: {} } },
    });
  });

  test('reading a missing resource is -32602 with data.uri', async () => {
    const read = client.readResource({ uri: 'test://no-such-resource' }, { cacheMode: 'bypass' });
    await expect(read).rejects.toBeInstanceOf(ResourceNotFoundError);
    await expect(read).rejects.toMatchObject({ code: ProtocolErrorCode.InvalidParams, data: { uri: 'test://no-such-resource' } });
  });

  test('listing tools twice over the wire gives the same tools in the same order', async () => {
    const mark = traffic.exchanges.length;
    const first = await client.listTools(undefined, { cacheMode: 'refresh' });
    const second = await client.listTools(undefined, { cacheMode: 'refresh' });
    expect(methodsOf(traffic.since(mark))).toEqual(['tools/list', 'tools/list']);
    expect(second.tools.map((t) => t.name)).toEqual(first.tools.map((t) => t.name));
    expect(second.tools).toEqual(first.tools);
  });
});

describe('modern cancellation', () => {
  const probe = cancellationProbe();
  const app = createApp({
    definitions: [{ tools: [probe.tool] }],
    stateSecret: 'x'.repeat(32),
    origin: { local: true, allowedOrigins: new Set() },
  });
  const traffic = recordTraffic(createMcpHandler(app));
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await startTestServer(traffic.handler);
    client = createV2Client('modern');
    await connectHttp(client, server.mcpUrl);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  test.each([
    ['before the call has sent anything', false],
    ['while the call streams', true],
  ])('aborting a call %s closes its response stream and aborts the tool\'s ctx.signal', async (label, openStream) => {
    const key = `modern ${label}`;
    const abort = new AbortController();
    const call = client.callTool(
      { name: WAIT_FOR_CANCEL, arguments: { key, openStream } },
      { signal: abort.signal, ...(openStream ? { onprogress: () => undefined } : {}) },
    );
    const settled = call.then(() => 'resolved', () => 'rejected');
    await probe.started(key);
    abort.abort('The user gave up.');

    expect(await settled).toBe('rejected');
    await probe.aborted(key);
    // The modern wire cancels by closing the stream: nothing else told the server.
    expect(methodsOf(traffic.exchanges)).not.toContain('notifications/cancelled');
  });
});
