/**
 * Nothing an upstream agent returns can exhaust the instance or leak through it: every byte of a reply counts
 * against AGENT_MAX_REPLY_BYTES, whatever events it forms, and the read is abandoned when the cap is hit; the
 * tool calls one reply may ask for are bounded (AGENT_MAX_TOOL_CALLS_PER_REPLY); an upstream's error text reaches
 * the operator's log, never the caller, unless AGENT_ERROR_DETAIL=pass. Against a real upstream process on
 * loopback, through the official SDK client.
 */

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { agentDefinitions } from '../../lib/agent/index.js';
import { createApp, type App } from '../../lib/app.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { secretsText, startUpstream, type Upstream } from '../support/upstream.js';

const CAP = 64 * 1024;
const KEY = 'sk-SECRET-KEY-0123456789abcdef';

let upstream: Upstream;
const opened: Array<{ client: Client; server: TestServer }> = [];

/** agent-mcp on loopback with agents `stream` (openai), `json` (platform) and `flood` (openai, with a tool). */
async function startAgentMcp(extra: Record<string, string> = {}): Promise<Client> {
  const env = {
    AGENT_MAX_REPLY_BYTES: String(CAP),
    LEAKY_KEY: KEY,
    AGENTS: JSON.stringify([
      { id: 'stream', format: 'openai', url: `${upstream.url}/v1`, model: 'm', apiKeyEnv: 'LEAKY_KEY' },
      { id: 'json', format: 'platform', url: `${upstream.url}/platform/chat`, apiKeyEnv: 'LEAKY_KEY' },
      { id: 'flood', format: 'openai', url: `${upstream.url}/v1`, model: 'm', tools: ['agent:json'] },
    ]),
    ...extra,
  };
  let app: App;
  app = createApp({
    definitions: [agentDefinitions(env, [], { connect: (principal, limits) => app.connectInProcess(principal, limits) })],
    origin: { local: true, allowedOrigins: new Set() },
  });
  const server = await startTestServer(createMcpHandler(app));
  const client = new Client({ name: 'bounds-test', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
  opened.push({ client, server });
  return client;
}

let client: Client;
beforeAll(async () => {
  upstream = await startUpstream();
  client = await startAgentMcp();
});
afterAll(async () => {
  for (const { client, server } of opened) {
    await client.close().catch(() => undefined);
    await server.close();
  }
  upstream?.stop();
});
afterEach(() => vi.restoreAllMocks());

async function chat(agent_id: string, message: string, via = client) {
  const result = await via.callTool({ name: 'chat_with_agent', arguments: { agent_id, message } });
  const text = (result.content as Array<{ type: string; text?: string }>).find((c) => c.type === 'text')?.text ?? '';
  return { isError: result.isError === true, text };
}

/** The upstream saw its reply abandoned: the connection closed before the body ended. */
async function abandoned(message: string) {
  const log = await upstream.waitFor((entries) => entries.some((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message));
  return log.some((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message);
}

/** Bytes of body the upstream had written for `message` when agent-mcp closed the connection. */
async function writtenBeforeClose(message: string): Promise<number> {
  const log = await upstream.waitFor((entries) => entries.some((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message));
  return log.find((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message)!.written!;
}

/**
 * What the kernel's socket buffers on loopback can hold beyond what agent-mcp read: the upstream has written this
 * much more before it learns that the connection is gone. Far below the hostile streams' sizes.
 */
const SOCKET_SLACK = 8 * 1024 * 1024;

describe("an agent's reply over AGENT_MAX_REPLY_BYTES is refused and its read abandoned", () => {
  test.each([
    ['a 50 MB streamed (OpenAI SSE) reply', 'stream', `fault:huge ${50 * 1024 * 1024}`],
    ['a 50 MB JSON (platform) reply', 'json', `fault:huge ${50 * 1024 * 1024}`],
    ['one SSE event that never ends', 'stream', 'fault:endless-event'],
  ])('%s gets isError "the agent\'s reply exceeded N bytes"', async (_name, agent, fault) => {
    const message = `${fault} ${crypto.randomUUID()}`;
    const result = await chat(agent, message);
    expect(result).toEqual({ isError: true, text: `Agent ${agent}: the agent's reply exceeded ${CAP} bytes.` });
    expect(await abandoned(message)).toBe(true);
  });

  test('a reply within the cap arrives whole', async () => {
    const result = await chat('stream', 'hello within bounds');
    expect(result.isError).toBe(false);
    expect(result.text).toContain('Echo: hello within bounds');
  });
});

describe('every byte an upstream sends counts against AGENT_MAX_REPLY_BYTES, whatever events it forms', () => {
  test('100 MB of empty events (`data: {"choices":[]}`) get isError "exceeded N bytes", read no further than the cap', async () => {
    const message = `fault:empty-events ${100 * 1024 * 1024} ${crypto.randomUUID()}`;
    const result = await chat('stream', message);
    expect(result).toEqual({ isError: true, text: `Agent stream: the agent's reply exceeded ${CAP} bytes.` });
    expect(await writtenBeforeClose(message)).toBeLessThan(CAP + SOCKET_SLACK);
  });

  test('a non-streamed JSON completion over the cap gets the same isError, its read abandoned', async () => {
    const message = `fault:huge-json ${50 * 1024 * 1024} ${crypto.randomUUID()}`;
    const result = await chat('stream', message);
    expect(result).toEqual({ isError: true, text: `Agent stream: the agent's reply exceeded ${CAP} bytes.` });
    expect(await writtenBeforeClose(message)).toBeLessThan(CAP + SOCKET_SLACK);
  });

  test('a platform reply over the cap gets the same isError, its read abandoned', async () => {
    const message = `fault:huge ${50 * 1024 * 1024} ${crypto.randomUUID()}`;
    const result = await chat('json', message);
    expect(result).toEqual({ isError: true, text: `Agent json: the agent's reply exceeded ${CAP} bytes.` });
    expect(await writtenBeforeClose(message)).toBeLessThan(CAP + SOCKET_SLACK);
  });
});

describe('the tool calls one reply may ask for are bounded (AGENT_MAX_TOOL_CALLS_PER_REPLY, 128)', () => {
  test('300,000 tool-call events of distinct indexes stop the turn with isError naming the bound, the read abandoned', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const message = `fault:tool-flood 300000 ${crypto.randomUUID()}`;
    const result = await chat('flood', message);
    expect(result).toEqual({
      isError: true,
      text: 'Agent flood asked for more than 128 tool calls in one reply (AGENT_MAX_TOOL_CALLS_PER_REPLY is 128); the turn was stopped.',
    });
    // The whole stream is ~16.5 MB; agent-mcp stopped reading after the 129th call (~7 KB).
    expect(await writtenBeforeClose(message)).toBeLessThan(CAP + SOCKET_SLACK);
    expect(warn.mock.calls.map((c) => String(c[0]))).toContainEqual(expect.stringMatching(/AGENT_MAX_TOOL_CALLS_PER_REPLY \(latest: agent flood\)/));
  });

  test('the bound is set by AGENT_MAX_TOOL_CALLS_PER_REPLY', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const own = await startAgentMcp({ AGENT_MAX_TOOL_CALLS_PER_REPLY: '3' });
    const result = await chat('flood', `fault:tool-flood 10 ${crypto.randomUUID()}`, own);
    expect(result).toEqual({
      isError: true,
      text: 'Agent flood asked for more than 3 tool calls in one reply (AGENT_MAX_TOOL_CALLS_PER_REPLY is 3); the turn was stopped.',
    });
  });
});

describe("an upstream's error text reaches the operator's log, not the caller", () => {
  const { secrets } = secretsText(KEY);
  const logged = (spy: { mock: { calls: unknown[][] } }) => spy.mock.calls.map((c) => c.map(String).join(' ')).join('\n');

  test.each([
    ['stream', 'fault:secrets', 'Agent stream failed: the upstream answered HTTP 500.'],
    ['json', 'fault:secrets', 'Agent json failed: the upstream answered HTTP 500.'],
    ['stream', 'fault:stream-secrets', 'Agent stream reported an error in its reply.'],
  ])('agent %s, %s: the caller gets the agent, the status and a fixed sentence, none of the secrets', async (agent, fault, sentence) => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const result = await chat(agent, `${fault} ${crypto.randomUUID()}`);
    expect(result).toEqual({ isError: true, text: sentence });
    for (const secret of secrets) expect(result.text).not.toContain(secret);
    // The operator reads what the upstream said, with the configured key redacted.
    const log = logged(error);
    expect(log).toContain(`agent ${agent}`);
    expect(log).toContain('db.internal.corp:5432');
    expect(log).toContain('password=hunter2');
    expect(log).not.toContain(KEY);
  });

  test('a 500 body holding the key and internal URLs reaches the caller as the fixed sentence, the log with the key redacted', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const result = await chat('stream', `fault:leak ${crypto.randomUUID()}`);
    expect(result).toEqual({ isError: true, text: 'Agent stream failed: the upstream answered HTTP 500.' });
    expect(logged(error)).toContain('Invalid API key [redacted] for deployment http://internal.example/x?sig=abc');
  });

  test('an error body is read a few KB deep, not whole, and logged cut', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const message = `fault:huge-error ${crypto.randomUUID()}`;
    const result = await chat('stream', message);
    expect(result).toEqual({ isError: true, text: 'Agent stream failed: the upstream answered HTTP 500.' });
    expect(await abandoned(message)).toBe(true);
    const line = logged(error);
    expect(line).toContain('e'.repeat(1000));
    expect(line.length).toBeLessThan(5 * 1024);
  });

  describe('with AGENT_ERROR_DETAIL=pass', () => {
    let passing: Client;
    beforeAll(async () => {
      passing = await startAgentMcp({ AGENT_ERROR_DETAIL: 'pass' });
    });

    test.each([
      ['stream', 'fault:secrets', /^Agent stream failed: the upstream answered HTTP 500 \(.+\)\.$/],
      ['json', 'fault:secrets', /^Agent json failed: the upstream answered HTTP 500 \(.+\)\.$/],
      ['stream', 'fault:stream-secrets', /^Agent stream reported an error in its reply \(.+\)\.$/],
    ])('agent %s, %s: the caller gets the body too, cut short, the configured key redacted', async (agent, fault, shape) => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const result = await chat(agent, `${fault} ${crypto.randomUUID()}`, passing);
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(shape);
      expect(result.text).toContain('db.internal.corp:5432');
      expect(result.text).not.toContain(KEY);
    });

    test('the key, bearer tokens and URLs are still redacted', async () => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const result = await chat('stream', `fault:leak ${crypto.randomUUID()}`, passing);
      expect(result.text).toBe('Agent stream failed: the upstream answered HTTP 500 (Invalid API key [redacted] for deployment [url] (see [url] )).');
    });

    test('a body is cut at 160 characters', async () => {
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      const result = await chat('stream', `fault:huge-error ${crypto.randomUUID()}`, passing);
      expect(result.text).toMatch(/^Agent stream failed: the upstream answered HTTP 500 \(e{160}…\)\.$/);
    });
  });
});
