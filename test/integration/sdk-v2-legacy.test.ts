/**
 * The official v2 client (`@modelcontextprotocol/client`) on the legacy wire: `initialize` at 2025-11-25,
 * over real loopback HTTP against the local server with the conformance fixture pack.
 */

import { ProtocolError, ProtocolErrorCode, type Client, type StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp } from '../../lib/app.js';
import { createConformanceHandler } from '../fixtures/conformance-handler.js';
import { WAIT_FOR_CANCEL, cancellationProbe } from '../support/cancellation.js';
import {
  LEGACY_VERSION, answerElicitation, answerSampling, connectHttp, createV2Client, firstText, isClientAnswer,
  methodsOf, recordTraffic,
} from '../support/sdk.js';
import { openSession, post, readSse } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('the v2 SDK client on the 2025-11-25 wire', () => {
  const traffic = recordTraffic(createConformanceHandler());
  let server: TestServer;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  let elicitations: any[];
  let samplings: any[];

  beforeAll(async () => {
    server = await startTestServer(traffic.handler);
    client = createV2Client('legacy', { elicitation: {}, sampling: {} });
    elicitations = answerElicitation(client, () => ({ username: 'ada', email: 'ada@example.com' }));
    samplings = answerSampling(client, 'Paris is the capital of France.');
    transport = await connectHttp(client, server.mcpUrl);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  test('a legacy client connects with initialize, negotiates 2025-11-25 and keeps the issued session id', () => {
    expect(client.getProtocolEra()).toBe('legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe(LEGACY_VERSION);
    expect(client.getServerVersion()?.name).toBe('agent-mcp');
    expect(methodsOf(traffic.exchanges).slice(0, 2)).toEqual(['initialize', 'notifications/initialized']);
    expect(methodsOf(traffic.exchanges)).not.toContain('server/discover');
    expect(transport.sessionId).toMatch(/^[\x21-\x7E]+$/);
  });

  test('a legacy client lists tools and finds chat_with_agent and the fixtures', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('chat_with_agent');
    expect(names).toContain('test_simple_text');
  });

  test('a legacy client calls a tool and gets its text', async () => {
    const result = await client.callTool({ name: 'test_simple_text' });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
  });

  test('progress notifications reach the onprogress callback in increasing order', async () => {
    const progress: Array<{ progress: number; total?: number }> = [];
    const result = await client.callTool({ name: 'test_tool_with_progress' }, { onprogress: (p) => progress.push(p) });
    expect(firstText(result)).toBe('Progress tool completed');
    expect(progress.map((p) => p.progress)).toEqual([0, 50, 100]);
    expect(progress.every((p) => p.total === 100)).toBe(true);
  });

  test('a tool elicits on its own SSE stream and the answer, POSTed separately, reaches the waiting call', async () => {
    const mark = traffic.exchanges.length;
    const asked = elicitations.length;
    const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });

    expect(elicitations.slice(asked)).toHaveLength(1);
    expect(elicitations[asked]).toMatchObject({
      message: 'Who are you?',
      requestedSchema: { properties: { username: { type: 'string' }, email: { type: 'string' } } },
    });
    expect(result.isError).toBeFalsy();
    expect(firstText(result)).toContain('action=accept');
    expect(firstText(result)).toContain('"username":"ada"');
    expect(firstText(result)).toContain('"email":"ada@example.com"');

    const exchanges = traffic.since(mark);
    const call = exchanges.find((e) => e.body?.method === 'tools/call');
    expect(call?.contentType).toMatch(/^text\/event-stream/);
    const answers = exchanges.filter(isClientAnswer);
    expect(answers).toHaveLength(1);
    expect(answers[0]!.body.result).toMatchObject({ action: 'accept' });
    expect(answers[0]!.body.id).not.toBe(call!.body.id);
  });

  test('a tool samples through the client and uses the model answer', async () => {
    const mark = traffic.exchanges.length;
    const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Capital of France?' } });
    expect(samplings.at(-1)).toMatchObject({ messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }] });
    expect(result.isError).toBeFalsy();
    expect(firstText(result)).toBe('LLM response: Paris is the capital of France.');
    expect(traffic.since(mark).filter(isClientAnswer)).toHaveLength(1);
  });

  test('a legacy client reads a static resource', async () => {
    const { contents } = await client.readResource({ uri: 'test://static-text' });
    expect(contents).toEqual([{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }]);
  });

  test('a legacy client gets a prompt with arguments', async () => {
    const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='a', arg2='b'" } }]);
  });

  test('a legacy client completes a prompt argument', async () => {
    const { completion } = await client.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'par' },
    });
    expect(completion.values).toEqual(['paris', 'park', 'party']);
  });

  test('a tool that fails returns an isError result, not a protocol error', async () => {
    const result = await client.callTool({ name: 'test_error_handling' });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('intentionally returns an error');
  });

  test('invalid arguments to chat_with_agent are an isError result naming the argument', async () => {
    const result = await client.callTool({ name: 'chat_with_agent', arguments: {} });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('message');
  });

  test('an unknown tool is a protocol error -32602', async () => {
    const call = client.callTool({ name: 'no_such_tool' });
    await expect(call).rejects.toBeInstanceOf(ProtocolError);
    await expect(call).rejects.toMatchObject({ code: ProtocolErrorCode.InvalidParams });
  });
});

describe('legacy cancellation', () => {
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
    client = createV2Client('legacy');
    await connectHttp(client, server.mcpUrl);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  test.each([
    ['before the call has sent anything', false],
    ['while the call streams', true],
  ])('aborting a call %s sends notifications/cancelled and aborts the tool\'s ctx.signal', async (label, openStream) => {
    const key = `legacy ${label}`;
    const abort = new AbortController();
    const call = client.callTool(
      { name: WAIT_FOR_CANCEL, arguments: { key, openStream } },
      { signal: abort.signal, ...(openStream ? { onprogress: () => undefined } : {}) },
    );
    const settled = call.then(() => 'resolved', () => 'rejected');
    await probe.started(key);
    abort.abort('The user gave up.');

    expect(await settled).toBe('rejected');
    const reason = await probe.aborted(key);
    expect(reason).toBeInstanceOf(Error);

    const calls = traffic.exchanges.filter((e) => e.body?.method === 'tools/call' && e.body.params?.arguments?.key === key);
    expect(calls).toHaveLength(1);
    const cancels = traffic.exchanges.filter((e) => e.body?.method === 'notifications/cancelled');
    expect(cancels.map((e) => e.body.params.requestId)).toContain(calls[0]!.body.id);
  });

  test('a cancellation filed before a call with the same id started does not cancel it; one filed after does, and the call gets no reply', async () => {
    const headers = await openSession(server.mcpUrl, LEGACY_VERSION);
    const cancel = () => post(server.mcpUrl, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'reused-7' } }, headers);
    expect((await cancel()).status).toBe(202);
    const key = 'same id as an earlier cancelled call';
    const reply = post(server.mcpUrl, { jsonrpc: '2.0', id: 'reused-7', method: 'tools/call', params: { name: WAIT_FOR_CANCEL, arguments: { key } } }, headers);
    let freshCancelSent = false;
    const abortedByStale = probe.aborted(key).then(() => !freshCancelSent);
    await probe.started(key);
    await new Promise((resolve) => setTimeout(resolve, 100)); // time the watcher has to (wrongly) see the old one
    freshCancelSent = true;
    expect((await cancel()).status).toBe(202);
    expect(await abortedByStale).toBe(false);
    // Receivers SHOULD NOT respond to a cancelled request: its stream closes without a reply.
    const response = await reply;
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await readSse(response).rest()).toEqual([]);
  });
});
