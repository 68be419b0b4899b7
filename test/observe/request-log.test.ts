/**
 * The request log (docs/observability.md "Observability"): one JSON line per request to the MCP endpoint, over real HTTP with
 * the official SDK client, bearer auth from a real issuer and the real upstream agent process. The line says
 * what was called and how it went, and never who called, with what, or with which key.
 */

import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp } from '../../lib/app.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { post } from '../support/rpc.js';
import { MODERN_VERSION, type Era } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

const UPSTREAM_KEY = 'sk-upstream-key-never-logged';
const SUBJECT = 'subject-never-logged';
const AUDIENCE = 'https://agent.example.test/mcp';
const now = () => Math.floor(Date.now() / 1000);

let issuer: TestIssuer;
let upstream: Upstream;
let server: TestServer;
let lines: Array<Record<string, unknown>>;
let raw: string[];

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'test-model', AGENT_API_KEY: UPSTREAM_KEY,
    AUTH_ISSUER: issuer.issuer, AUTH_AUDIENCE: AUDIENCE, ...extra,
  };
}

beforeAll(async () => {
  [issuer, upstream] = await Promise.all([startIssuer(), startUpstream()]);
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
  server = await startTestServer(createMcpHandler(createDefaultApp(env())));
});

afterAll(async () => {
  vi.restoreAllMocks();
  await server?.close();
  upstream?.stop();
  await issuer?.close();
});

/**
 * Captures what the server writes to stdout, the request lines (one write each) and console.log alike: the request
 * lines, parsed, and everything as text.
 */
function capture(): void {
  lines = [];
  raw = [];
  const note = (text: string) => {
    raw.push(text);
    try {
      const parsed = JSON.parse(text);
      if (parsed.msg === 'mcp request') lines.push(parsed);
    } catch { /* not a request line */ }
  };
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => note(args.map(String).join(' ')));
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    note(String(chunk).replace(/\n$/, ''));
    return true;
  });
}
afterEach(() => {
  vi.mocked(console.log).mockRestore?.();
  vi.mocked(process.stdout.write).mockRestore?.();
});

const token = () => issuer.mint({ iss: issuer.issuer, aud: AUDIENCE, sub: SUBJECT, client_id: 'client-never-logged', iat: now(), exp: now() + 300 });

async function connect(era: Era, bearer: string): Promise<Client> {
  const client = new Client(
    { name: 'log-test', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: MODERN_VERSION } : 'legacy' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  return client;
}

const callLine = () => lines.find((l) => l.method === 'tools/call');

describe.each(['modern', 'legacy'] as const)('on the %s wire', (era) => {
  test('a tool call writes one line: method, tool, caller kind, era, status, duration and upstream duration', async () => {
    capture();
    const bearer = await token();
    const client = await connect(era, bearer);
    const message = `private words ${era} 7f3a`;
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { message } });
    expect(result.isError).toBeFalsy();
    await vi.waitFor(() => expect(callLine()).toBeDefined());
    await client.close();

    expect(lines.filter((l) => l.method === 'tools/call')).toHaveLength(1);
    const line = callLine()!;
    expect(line).toMatchObject({ tool: 'chat_with_agent', caller: era === 'modern' ? 'token' : 'token+session', era, status: 200 });
    expect(typeof line.time).toBe('string');
    expect(line.time).toBe(new Date(Date.parse(line.time as string)).toISOString());
    expect(line.duration_ms).toEqual(expect.any(Number));
    expect(line.upstream_ms).toEqual(expect.any(Number));
    expect(line.upstream_ms as number).toBeLessThanOrEqual(line.duration_ms as number);
    expect(line).not.toHaveProperty('error');
    expect(lines.map((l) => l.method)).toContain(era === 'modern' ? 'server/discover' : 'initialize');

    // Nothing that identifies the caller, carries its words, or unlocks anything.
    const all = raw.join('\n');
    for (const secret of [bearer, SUBJECT, 'client-never-logged', message, 'private words', UPSTREAM_KEY, upstream.url]) {
      expect(all).not.toContain(secret);
    }
  });
});

describe('the error kind', () => {
  test('a tool that fails is logged as tool_error, with the upstream time it took', async () => {
    capture();
    const client = await connect('modern', await token());
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { message: 'fault:500' } });
    expect(result.isError).toBe(true);
    await vi.waitFor(() => expect(callLine()).toBeDefined());
    await client.close();
    expect(callLine()).toMatchObject({ status: 200, error: 'tool_error', upstream_ms: expect.any(Number) });
  });

  test.each([
    ['an upstream HTTP status', 'fault:500', 'upstream_http_500'],
    ['an upstream that closes the connection mid-reply', 'fault:drop', 'upstream_connection_failed:ECONNRESET'],
    ['a reply that breaks the upstream\'s format', 'fault:garbage', 'upstream_malformed_reply'],
  ])('an agent that fails says why in `cause`: %s (a code, never the upstream\'s text or key)', async (_case, message, cause) => {
    capture();
    const client = await connect('modern', await token());
    expect((await client.callTool({ name: 'chat_with_agent', arguments: { message } })).isError).toBe(true);
    await vi.waitFor(() => expect(callLine()).toBeDefined());
    await client.close();
    expect(callLine()).toMatchObject({ error: 'tool_error', cause });
    expect(raw.join('\n')).not.toContain(UPSTREAM_KEY);
  });

  test('a tool that fails for a reason of its own has no cause', async () => {
    capture();
    const client = await connect('modern', await token());
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { message: 'hi', agent_id: 'nobody' } });
    expect(result.isError).toBe(true);
    await vi.waitFor(() => expect(callLine()).toBeDefined());
    await client.close();
    expect(callLine()).not.toHaveProperty('cause');
  });

  test('a JSON-RPC error is logged by its code, a refused request by its HTTP status', async () => {
    capture();
    const headers = { 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${await token()}` };
    const unknown = await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }, headers);
    expect(unknown.status).toBe(200);
    const anonymous = await post(server.mcpUrl, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': '2025-11-25' });
    expect(anonymous.status).toBe(401);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ method: 'tools/call', tool: 'no_such_tool', status: 200, error: String((await unknown.json()).error.code) });
    expect(lines[1]).toMatchObject({ status: 401, error: '401', caller: 'anonymous' });
    expect(lines[1]).not.toHaveProperty('method');
  });
});

describe('a 2025-03-26 batch', () => {
  test('is one line: method batch, with its size', async () => {
    capture();
    const headers = { 'mcp-protocol-version': '2025-03-26', authorization: `Bearer ${await token()}` };
    const response = await post(server.mcpUrl, [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ], headers);
    expect(response.status).toBe(200);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'batch', batch: 2, era: 'legacy', protocol: '2025-03-26', caller: 'token', status: 200 });
    expect(lines[0]).not.toHaveProperty('tool');
  });
});

describe('MCP_LOG', () => {
  test('MCP_LOG=off writes no request lines', async () => {
    const quiet = await startTestServer(createMcpHandler(createDefaultApp(env({ MCP_LOG: 'off' }))));
    try {
      capture();
      const response = await post(quiet.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': '2025-11-25' });
      expect(response.status).toBe(401);
      expect(lines).toEqual([]);
    } finally {
      await quiet.close();
    }
  });

  test('a value other than on, off or debug is a configuration error naming MCP_LOG', () => {
    expect(() => createDefaultApp(env({ MCP_LOG: 'verbose' }))).toThrow(new TypeError('MCP_LOG must be on, off or debug, got "verbose".'));
  });
});
