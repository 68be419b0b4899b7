import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { post, postModern } from '../support/rpc.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const initialize = (id: number | string = 1, protocolVersion = '2025-11-25') => ({
  jsonrpc: '2.0', id, method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'test', version: '1' } },
});

describe('methods and routes', () => {
  test('the endpoint answers on /mcp and /api/mcp', async () => {
    for (const path of ['/mcp', '/api/mcp']) {
      const response = await post(`${server.url}${path}`, initialize());
      expect(response.status).toBe(200);
      expect((await response.json()).result.protocolVersion).toBe('2025-11-25');
    }
  });

  test.each(['GET', 'DELETE', 'PUT'])('%s without a stream to resume is 405 with Allow', async (method) => {
    const response = await fetch(server.mcpUrl, { method, headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
    expect((await response.json()).error.code).toBe(-32000);
  });

  test('initialize issues an Mcp-Session-Id of visible ASCII, and the session works on the next request', async () => {
    const response = await post(server.mcpUrl, initialize());
    const session = response.headers.get('mcp-session-id');
    expect(session).toMatch(/^[\x21-\x7E]+$/);
    const next = await post(server.mcpUrl, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': session! });
    expect(next.status).toBe(200);
  });

  test('a request without Mcp-Session-Id is served as before: sessions are issued, never required', async () => {
    const response = await post(server.mcpUrl, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': '2025-11-25' });
    expect(response.status).toBe(200);
    expect((await response.json()).result.tools.length).toBeGreaterThan(0);
  });

  test('the modern wire has no sessions: an Mcp-Session-Id there is ignored', async () => {
    const response = await postModern(server.mcpUrl, 5, 'tools/list', {}, { headers: { 'mcp-session-id': 'made-up-session' } });
    expect(response.status).toBe(200);
  });

  test('an Mcp-Session-Id the server did not issue gets 404, telling the client to initialize again', async () => {
    const response = await post(server.mcpUrl, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': 'made-up-session' });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32001 } });
  });
});

describe('content negotiation and body limits', () => {
  test('an Accept without text/event-stream is 406', async () => {
    const response = await post(server.mcpUrl, initialize(), { accept: 'application/json' });
    expect(response.status).toBe(406);
  });

  test('a non-JSON Content-Type is 415', async () => {
    const response = await post(server.mcpUrl, initialize(), { 'content-type': 'text/plain' });
    expect(response.status).toBe(415);
  });

  test('a body that is not JSON is 400 with -32700', async () => {
    const response = await fetch(server.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  test('a body over the cap is 413', async () => {
    const huge = { jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(4 * 1024 * 1024 + 10) } };
    const response = await post(server.mcpUrl, huge);
    expect(response.status).toBe(413);
  });
});

describe('Origin and Host (DNS-rebinding protection)', () => {
  test('a foreign Origin is 403', async () => {
    const response = await post(server.mcpUrl, initialize(), { origin: 'http://evil.example.com' });
    expect(response.status).toBe(403);
  });

  test('a loopback Origin passes and gets CORS headers', async () => {
    const response = await post(server.mcpUrl, initialize(), { origin: 'http://localhost:6274' });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(response.headers.get('access-control-expose-headers')).toContain('www-authenticate');
  });

  test('the preflight is answered before anything else and allows the MCP headers', async () => {
    const response = await fetch(server.mcpUrl, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST', 'access-control-request-headers': 'mcp-method, mcp-param-region' },
    });
    expect(response.status).toBe(204);
    const allowed = response.headers.get('access-control-allow-headers')!;
    for (const header of ['mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id', 'last-event-id', 'authorization', 'content-type', 'mcp-param-region']) {
      expect(allowed).toContain(header);
    }
  });
});

describe('legacy JSON-RPC framing', () => {
  test('a notification gets 202 and no body', async () => {
    const response = await post(server.mcpUrl, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-protocol-version': '2025-11-25' });
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
  });

  test('a client response to a request that is not ours gets 202 and is ignored', async () => {
    const response = await post(server.mcpUrl, { jsonrpc: '2.0', id: 'someone-elses-id', result: {} }, { 'mcp-protocol-version': '2025-11-25' });
    expect(response.status).toBe(202);
  });

  test('a client response naming one of our ids that we never sent to this client gets 400', async () => {
    const response = await post(server.mcpUrl, { jsonrpc: '2.0', id: 'mcp-srv-unknown', result: {} }, { 'mcp-protocol-version': '2025-11-25' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  test('a single request is answered with a single object, never a one-element array', async () => {
    const response = await post(server.mcpUrl, { jsonrpc: '2.0', id: 5, method: 'ping' }, { 'mcp-protocol-version': '2025-11-25' });
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
  });

  test('a 2025-03-26 batch is answered with an array of the requests\' replies', async () => {
    const response = await post(server.mcpUrl, [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'test_simple_text' } },
    ], { 'mcp-protocol-version': '2025-03-26' });
    const body = await response.json();
    expect(Array.isArray(body)).toBe(true);
    expect(body.map((r: { id: number }) => r.id).sort()).toEqual([1, 2]);
  });

  test('a batch at 2025-06-18 is refused with 400', async () => {
    const response = await post(server.mcpUrl, [{ jsonrpc: '2.0', id: 1, method: 'ping' }], { 'mcp-protocol-version': '2025-06-18' });
    expect(response.status).toBe(400);
  });

  test('an unsupported MCP-Protocol-Version is 400', async () => {
    const response = await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-protocol-version': '2030-01-01' });
    expect(response.status).toBe(400);
  });

  test('initialize negotiates: a supported version is echoed, an unknown one gets our latest legacy version', async () => {
    expect((await (await post(server.mcpUrl, initialize(1, '2025-06-18'))).json()).result.protocolVersion).toBe('2025-06-18');
    expect((await (await post(server.mcpUrl, initialize(1, '1999-01-01'))).json()).result.protocolVersion).toBe('2025-11-25');
  });

  test('an unknown method is -32601 on 200, as the legacy SDKs answer', async () => {
    const response = await post(server.mcpUrl, { jsonrpc: '2.0', id: 9, method: 'nope/nope' }, { 'mcp-protocol-version': '2025-11-25' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: 9, error: { code: -32601 } });
  });

  test('a missing resource is -32002 on the legacy wire', async () => {
    const response = await post(server.mcpUrl, { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'test://missing' } }, { 'mcp-protocol-version': '2025-11-25' });
    expect(await response.json()).toMatchObject({ id: 3, error: { code: -32002, data: { uri: 'test://missing' } } });
  });
});

describe('the modern wire', () => {
  test('every result carries resultType and the server info', async () => {
    const body = await (await postModern(server.mcpUrl, 1, 'tools/call', { name: 'test_simple_text' })).json();
    expect(body.result.resultType).toBe('complete');
    expect(body.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('agent-mcp');
  });

  test('lists carry ttlMs and cacheScope and come in the same order every time', async () => {
    const first = await (await postModern(server.mcpUrl, 1, 'tools/list')).json();
    const second = await (await postModern(server.mcpUrl, 2, 'tools/list')).json();
    expect(first.result).toMatchObject({ ttlMs: expect.any(Number), cacheScope: 'public' });
    expect(first.result.tools.map((t: { name: string }) => t.name)).toEqual(second.result.tools.map((t: { name: string }) => t.name));
  });

  test.each(['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'subscriptions/listen'])(
    'the removed or unknown method %s is 404 with -32601 and the request id', async (method) => {
      const response = await postModern(server.mcpUrl, 'id-404', method);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ id: 'id-404', error: { code: -32601 } });
    });

  test('a missing resource is -32602 with data.uri', async () => {
    const body = await (await postModern(server.mcpUrl, 4, 'resources/read', { uri: 'test://none' })).json();
    expect(body).toMatchObject({ id: 4, error: { code: -32602, data: { uri: 'test://none' } } });
  });

  test('a tool needing an undeclared capability is 400 with -32021 and requiredCapabilities', async () => {
    const response = await postModern(server.mcpUrl, 5, 'tools/call', { name: 'test_missing_capability' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ id: 5, error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } } });
  });

  test('an x-mcp-header argument must be mirrored in Mcp-Param-*', async () => {
    const call = (headers: Record<string, string>) =>
      postModern(server.mcpUrl, 6, 'tools/call', { name: 'test_x_mcp_header', arguments: { region: 'eu' } }, { headers });
    expect((await call({ 'mcp-param-region': 'eu' })).status).toBe(200);
    const missing = await call({});
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.code).toBe(-32020);
    expect((await call({ 'mcp-param-region': 'us' })).status).toBe(400);
  });

  test('a notification with the modern claim gets 202', async () => {
    const response = await post(server.mcpUrl, {
      jsonrpc: '2.0', method: 'notifications/whatever',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'notifications/whatever' });
    expect(response.status).toBe(202);
  });

  test('invalid tool arguments are an isError result, not a protocol error', async () => {
    const body = await (await postModern(server.mcpUrl, 7, 'tools/call', { name: 'chat_with_agent', arguments: { message: 42 } })).json();
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0].text).toContain('message');
  });
});
