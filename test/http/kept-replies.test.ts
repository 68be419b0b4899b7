/**
 * Over HTTP, a list answered from its kept page (lib/server/dispatch.ts createKeptReplies) is the reply the first
 * request of its view got, byte for byte but for the id, with the same status and headers; and the steps before
 * it (Origin, session, headers) still refuse what they refuse.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp } from '../../lib/app.js';
import { post, postModern } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  const app = createApp({
    definitions: [{ tools: [{ name: 'plain_tool', description: 'Says “hi” → back ☃.', run: () => ({ content: [] }) }] }],
    origin: { local: true, allowedOrigins: new Set() },
  });
  server = await startTestServer(createMcpHandler(app));
});

afterAll(() => server?.close());

const LEGACY = { 'mcp-protocol-version': '2025-11-25' };

async function snapshot(response: Response) {
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
}

describe('a kept list page over HTTP', () => {
  test.each([1, 'id “7”', 2 ** 40])('legacy: the kept reply for id %j is the built one with its own id', async (id) => {
    const built = await snapshot(await post(server.mcpUrl, { jsonrpc: '2.0', id: 'first', method: 'tools/list' }, LEGACY));
    const kept = await snapshot(await post(server.mcpUrl, { jsonrpc: '2.0', id, method: 'tools/list' }, LEGACY));
    expect(built.status).toBe(200);
    expect(kept.headers['content-type']).toBe('application/json');
    expect(kept.headers['mcp-protocol-version']).toBe('2025-11-25');
    const { date: _a, ...builtHeaders } = built.headers;
    const { date: _b, ...keptHeaders } = kept.headers;
    expect(keptHeaders).toEqual({ ...builtHeaders, ...(kept.headers['content-length'] ? { 'content-length': kept.headers['content-length'] } : {}) });
    expect(kept.body).toBe(built.body.replace('"id":"first"', `"id":${JSON.stringify(id)}`));
    expect(JSON.parse(kept.body).result.tools[0].description).toBe('Says “hi” → back ☃.');
  });

  test('modern: the kept reply is the completed result, in the version it speaks', async () => {
    const first = await snapshot(await postModern(server.mcpUrl, 1, 'tools/list'));
    const again = await snapshot(await postModern(server.mcpUrl, 2, 'tools/list'));
    expect(again.status).toBe(200);
    expect(again.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(again.body).toBe(first.body.replace('"id":1', '"id":2'));
    expect(JSON.parse(again.body).result).toMatchObject({ resultType: 'complete' });
  });

  test('the steps before it still refuse: a foreign Origin, a session the server did not issue, a missing Accept', async () => {
    await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, LEGACY);
    const foreign = await post(server.mcpUrl, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...LEGACY, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const forged = await post(server.mcpUrl, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { ...LEGACY, 'mcp-session-id': 'forged.session' });
    expect(forged.status).toBe(404);
    const noAccept = await post(server.mcpUrl, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, { ...LEGACY, accept: 'application/json' });
    expect(noAccept.status).toBe(406);
  });
});
