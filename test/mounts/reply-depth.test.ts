/**
 * A mounted server's reply is held to the request body's depth bound (MCP_MAX_JSON_DEPTH), counted on its bytes
 * as they arrive, one JSON body or one SSE event at a time: a result 5,000 levels deep is a clear isError for the
 * caller, never a stack overflow in the reply to it (an unhandled RangeError before). Real HTTP, the official v2
 * client as caller, a raw mount that answers as the test says (no SDK server sends such a reply).
 */

import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { readBody } from '../support/downstream.js';
import { startMountedApp, type MountedApp } from '../support/mounts.js';
import { connectHttp, createV2Client, firstText } from '../support/sdk.js';

const LEVELS = 5_000;
const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const TOOLS = ['deep_json', 'deep_sse', 'at_bound'].map((name) => ({ name, inputSchema: { type: 'object' } }));

/** Its tools answer with structuredContent nested `LEVELS` deep, as JSON or as one SSE event, or just within the bound. */
function startDeepMount(): Promise<{ url: string; server: Server }> {
  const reply = (id: unknown, result: string) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
  const json = (response: ServerResponse, body: string) => void response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  const server = createServer(async (request, response) => {
    if (request.method !== 'POST') return void response.writeHead(405, { allow: 'POST' }).end();
    const message = await readBody(request) as { id?: unknown; method?: string; params?: { name?: string } };
    if (message.id === undefined) return void response.writeHead(202).end();
    if (message.method === 'initialize') {
      return json(response, reply(message.id, JSON.stringify({ protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'deep', version: '1.0.0' } })));
    }
    if (message.method === 'tools/list') return json(response, reply(message.id, JSON.stringify({ tools: TOOLS })));
    const name = message.params?.name;
    // The envelope and the result are two levels; structuredContent at 62 makes 64 in all.
    const result = `{"content":[{"type":"text","text":"${name}"}],"structuredContent":${deep(name === 'at_bound' ? 61 : LEVELS)}}`;
    if (name !== 'deep_sse') return json(response, reply(message.id, result));
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(`event: message\ndata: ${reply(message.id, result)}\n\n`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server })));
}

let mount: { url: string; server: Server };
let mounted: MountedApp;
let url: string;
beforeAll(async () => {
  mount = await startDeepMount();
  mounted = startMountedApp([{ name: 'deep', url: mount.url }], { waitMs: 10_000 });
  url = (await mounted.http()).mcpUrl;
  await mounted.mounts.waitForConnections();
});
afterAll(async () => {
  await mounted.close();
  mount.server.closeAllConnections();
  await new Promise((resolve) => mount.server.close(resolve));
});

describe(`a mount replying with JSON ${LEVELS} levels deep`, () => {
  test.each(['deep_json', 'deep_sse'])('%s: the caller reads why, the connection is dropped, and the next call reconnects', async (tool) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const client = createV2Client('legacy');
      await connectHttp(client, url);
      const result = await client.callTool({ name: `deep.${tool}`, arguments: {} });
      expect(result.isError).toBe(true);
      expect(firstText(result)).toBe("Mount deep: the reply's JSON nests deeper than 64 levels (MCP_MAX_JSON_DEPTH); " +
        'the connection was dropped, and the next request reconnects.');
      // Within the bound, the same mount answers as before.
      const fine = await client.callTool({ name: 'deep.at_bound', arguments: {} });
      expect(fine.isError).toBeFalsy();
      expect(firstText(fine)).toBe('at_bound');
      await client.close();
    } finally {
      warn.mockRestore();
    }
  });
});
