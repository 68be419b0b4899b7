/**
 * Nothing an upstream agent returns can exhaust the instance or leak through it: replies are capped
 * (AGENT_MAX_REPLY_BYTES) and the read is abandoned when the cap is hit; error bodies are read a few KB deep and
 * never passed on verbatim. Against a real upstream process on loopback, through the official SDK client.
 */

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { agentDefinitions } from '../../lib/agent/index.js';
import { createApp } from '../../lib/app.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

const CAP = 64 * 1024;
const KEY = 'sk-SECRET-KEY-0123456789abcdef';

let upstream: Upstream;
let server: TestServer;
let client: Client;

beforeAll(async () => {
  upstream = await startUpstream();
  const env = {
    AGENT_MAX_REPLY_BYTES: String(CAP),
    LEAKY_KEY: KEY,
    AGENTS: JSON.stringify([
      { id: 'stream', format: 'openai', url: `${upstream.url}/v1`, model: 'm', apiKeyEnv: 'LEAKY_KEY' },
      { id: 'json', format: 'platform', url: `${upstream.url}/platform/chat`, apiKeyEnv: 'LEAKY_KEY' },
    ]),
  };
  const app = createApp({ definitions: [agentDefinitions(env)], origin: { local: true, allowedOrigins: new Set() } });
  server = await startTestServer(createMcpHandler(app));
  client = new Client({ name: 'bounds-test', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
});
afterAll(async () => {
  await client?.close().catch(() => undefined);
  await server?.close();
  upstream?.stop();
});

async function chat(agent_id: string, message: string) {
  const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id, message } });
  const text = (result.content as Array<{ type: string; text?: string }>).find((c) => c.type === 'text')?.text ?? '';
  return { isError: result.isError === true, text };
}

/** The upstream saw its reply abandoned: the connection closed before the body ended. */
async function abandoned(message: string) {
  const log = await upstream.waitFor((entries) => entries.some((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message));
  return log.some((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message);
}

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

describe('upstream error text is never passed on verbatim', () => {
  test.each(['stream', 'json'])('a 500 body holding the key and internal URLs reaches the %s caller redacted', async (agent) => {
    const result = await chat(agent, `fault:leak ${crypto.randomUUID()}`);
    expect(result.isError).toBe(true);
    expect(result.text).toBe(`Agent ${agent} failed: the upstream answered HTTP 500 (Invalid API key [redacted] for deployment [url] (see [url] )).`);
    expect(result.text).not.toContain(KEY);
    expect(result.text).not.toContain('internal.example');
  });

  test('an error body is read a few KB deep, not whole', async () => {
    const message = `fault:huge-error ${crypto.randomUUID()}`;
    const result = await chat('stream', message);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^Agent stream failed: the upstream answered HTTP 500 \(e{160}…\)\.$/);
    expect(await abandoned(message)).toBe(true);
  });
});
