/**
 * Wrong answers to bad input, over real loopback HTTP: a broken Host, prototype names as methods or argument
 * names, a client that drops its upload, deep JSON, the preflight's method list and the capabilities we claim.
 */

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startLocalServer } from '../../scripts/local-server.js';
import { createConformanceHandler } from '../fixtures/conformance-handler.js';
import { post, postModern, sendWithHost } from '../support/rpc.js';

const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
const ROUTES = ['/', '/mcp', '/api/mcp', '/mcp/server-card', '/.well-known/mcp.json', '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp', '/nowhere'];

const statuses: number[] = [];
const handler = createConformanceHandler();
let server: { url: string; close(): Promise<void> };
let mcpUrl: string;

beforeAll(async () => {
  // The production routes and handlers of `npm start`, with the MCP handler's statuses recorded.
  server = await startLocalServer({
    port: 0,
    functions: { '/api/mcp': async (request) => {
      const response = await handler(request);
      statuses.push(response.status);
      return response;
    } },
  });
  mcpUrl = `${server.url}/mcp`;
});
afterAll(() => server?.close());

/** A raw request with any Host header (fetch will not send a forged one). */
const rawGet = (path: string, host: string, method = 'GET') => sendWithHost(server.url, path, host, method);

describe('a Host header that is not a valid host[:port]', () => {
  test.each(ROUTES)('Host: localhost:99999 on %s gets 400 with a JSON-RPC error, never a 500', async (path) => {
    for (const method of ['GET', 'POST']) {
      const { status, body } = await rawGet(path, 'localhost:99999', method);
      expect(status).toBe(400);
      expect(JSON.parse(body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('Host') } });
    }
  });

  test('the MCP handler itself refuses a Host it cannot read as host[:port], even where the URL parses', async () => {
    const response = await handler(new Request('http://localhost/mcp', { method: 'POST', headers: { host: 'localhost:99999' }, body: '{}' }));
    expect(response.status).toBe(400);
  });
});

describe('a Host is an authority: host[:port], no user info, no path (RFC 3986 §3.2)', () => {
  const NOT_AUTHORITIES = ['[::1]@evil.com', 'localhost@evil.com', 'localhost:3100/evil', 'localhost/evil', 'localhost?x=1', 'localhost#x', 'local host'];

  test.each(NOT_AUTHORITIES)('the MCP handler answers Host: %s with 400, before anything runs', async (host) => {
    const response = await handler(new Request('http://localhost/mcp', {
      method: 'POST', headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...LEGACY },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    }));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { message: 'Bad Request: the Host header is not a valid host[:port].' } });
  });

  test('over loopback, Host: [::1]@evil.com gets 400 on the MCP endpoint and on every document, never a page naming evil.com', async () => {
    for (const path of ['/mcp', '/.well-known/mcp.json', '/mcp/server-card', '/.well-known/oauth-protected-resource']) {
      const { status, body } = await rawGet(path, '[::1]@evil.com', path === '/mcp' ? 'POST' : 'GET');
      expect([path, status]).toEqual([path, 400]);
      expect(body).not.toContain('evil.com');
    }
  });

  test('served locally, the discovery documents answer a foreign Host with 403, never reflecting it', async () => {
    for (const path of ['/.well-known/mcp.json', '/mcp/server-card']) {
      const { status, body } = await rawGet(path, 'evil.example:80');
      expect([path, status]).toEqual([path, 403]);
      expect(body).not.toContain('evil.example');
    }
    const { port } = new URL(server.url);
    expect(JSON.parse((await rawGet('/.well-known/mcp.json', `127.0.0.1:${port}`)).body).url).toBe(`http://127.0.0.1:${port}/mcp`);
  });
});

describe('a foreign Origin', () => {
  test('gets 403 with a fixed sentence that names the variable to set, never the Origin it was sent', async () => {
    const response = await handler(new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { origin: 'https://evil.example<script>', 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...LEGACY },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    }));
    expect(response.status).toBe(403);
    const body = await response.text();
    expect(body).not.toContain('evil.example');
    expect(JSON.parse(body)).toMatchObject({ error: { message: 'Forbidden: this Origin is not allowed (MCP_ALLOWED_ORIGINS lists the allowed ones).' } });
  });
});

describe('prototype names are unknown names, never inherited members', () => {
  const NAMES = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf'];

  test.each(NAMES)('modern method %s gets 404 and -32601', async (method) => {
    const response = await postModern(mcpUrl, 1, method);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ id: 1, error: { code: -32601 } });
  });

  test.each(NAMES)('legacy method %s gets -32601', async (method) => {
    const response = await post(mcpUrl, { jsonrpc: '2.0', id: 1, method }, LEGACY);
    expect(await response.json()).toMatchObject({ id: 1, error: { code: -32601 } });
  });

  test.each(NAMES)('completing an argument named %s finds no completer', async (name) => {
    const response = await post(mcpUrl, { jsonrpc: '2.0', id: 1, method: 'completion/complete', params: {
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name, value: '' } } }, LEGACY);
    expect(await response.json()).toMatchObject({ id: 1, result: { completion: { values: [], total: 0 } } });
  });
});

describe('JSON nesting depth is bounded at parse time', () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  test('a cancellation whose reason nests 5,000 deep gets 400 and -32600', async () => {
    const body = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":${nested(5_000)}}}`;
    const response = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...LEGACY }, body });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('deeper than 64') } });
  });

  test('a client answer whose result nests 5,000 deep gets 400 and -32600', async () => {
    const body = `{"jsonrpc":"2.0","id":"srv-1","result":{"content":${nested(5_000)}}}`;
    const response = await fetch(mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...LEGACY }, body });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe(-32600);
  });

  test('a message nesting exactly 64 deep is served', async () => {
    // The message object, params and arguments are 3 levels; 61 more arrays make 64.
    const args = JSON.parse(`{"deep":${nested(61)}}`);
    const response = await post(mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'test_simple_text', arguments: args } }, LEGACY);
    expect(response.status).toBe(200);
    expect((await response.json()).result).toBeDefined();
  });
});

describe('a client that drops mid-upload is not a server error', () => {
  test('no "unexpected failure" log line and no 500 is attempted', async () => {
    const error = vi.spyOn(console, 'error');
    const before = statuses.length;
    const { port } = new URL(server.url);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`POST /mcp HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Type: application/json\r\n`
          + 'Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{"jsonrpc":"2.0","id":1,');
        setTimeout(() => socket.destroy(), 100);
      });
      socket.on('close', () => resolve());
    });
    await vi.waitFor(() => expect(statuses.length).toBeGreaterThan(before), { timeout: 5_000 });
    expect(statuses.slice(before)).not.toContain(500);
    expect(error.mock.calls.flat().join(' ')).not.toContain('unexpected failure');
    error.mockRestore();
  });
});

describe('what the endpoint claims is what it does', () => {
  test('the CORS preflight lists only served methods: no DELETE', async () => {
    const response = await fetch(mcpUrl, { method: 'OPTIONS', headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' } });
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
    const del = await fetch(mcpUrl, { method: 'DELETE' });
    expect(del.status).toBe(405);
  });

  test('legacy initialize does not advertise resources.subscribe (no updates are ever sent)', async () => {
    const response = await post(mcpUrl, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {
      protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }, LEGACY);
    const { result } = await response.json();
    expect(result.capabilities.resources).toBeDefined();
    expect(result.capabilities.resources.subscribe).toBeUndefined();
  });
});
