/**
 * The official SDK clients with an API key (issue 27 §1, "Real clients"): the key goes in `requestInit.headers`, as
 * the SDKs document for static tokens, and the client connects, lists and calls as the key's principal (kind
 * `api-key`, its line's name) on every wire it speaks. Without the header, it is told 401 and does not connect.
 */

import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { bearer, keyLine, mintTestKey, startKeyServer } from '../support/api-keys.js';
import { connectHttp, createV2Client, firstText, type Era } from '../support/sdk.js';
import type { TestServer } from '../support/server.js';

const KEY = mintTestKey();
let server: TestServer;

beforeAll(async () => {
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  server = await startKeyServer({ MCP_API_KEYS: keyLine('ci', KEY, 'scopes=agents:chat'), AUTH_SCOPES: 'agents:chat' });
});
afterAll(async () => {
  await server?.close();
  vi.restoreAllMocks();
});

const whoami = (result: unknown) => JSON.parse(firstText(result as never));

describe('the v1 SDK client (@modelcontextprotocol/sdk) with the key in requestInit.headers', () => {
  test('connects, lists the tools the key may use and calls one as the key named ci', async () => {
    const client = new V1Client({ name: 'ci-job', version: '1.0.0' });
    await client.connect(new V1Transport(new URL(server.mcpUrl), { requestInit: { headers: bearer(KEY) } }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['whoami', 'chat_with_agent']));
      expect(whoami(await client.callTool({ name: 'whoami', arguments: {} }))).toEqual({ kind: 'api-key', subject: 'ci', scopes: ['agents:chat'] });
    } finally {
      await client.close();
    }
  });

  test('without the header it does not connect, and shows the server\'s sentence: send an API key', async () => {
    const client = new V1Client({ name: 'ci-job', version: '1.0.0' });
    await expect(client.connect(new V1Transport(new URL(server.mcpUrl)))).rejects.toThrow('send an API key as Authorization: Bearer <key>');
  });

  test('with a wrong key it does not connect either: the key is not valid', async () => {
    const client = new V1Client({ name: 'ci-job', version: '1.0.0' });
    await expect(client.connect(new V1Transport(new URL(server.mcpUrl), { requestInit: { headers: bearer(mintTestKey()) } })))
      .rejects.toThrow('The API key is not valid.');
  });
});

describe.each<Era>(['legacy', 'modern'])('the v2 SDK client (@modelcontextprotocol/client) on the %s wire with the key', (era) => {
  test('connects, lists and calls as the key named ci', async () => {
    const client = createV2Client(era);
    await connectHttp(client, server.mcpUrl, bearer(KEY));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('whoami');
      expect(whoami(await client.callTool({ name: 'whoami', arguments: {} }))).toEqual({ kind: 'api-key', subject: 'ci', scopes: ['agents:chat'] });
    } finally {
      await client.close();
    }
  });

  test('without the header it does not connect', async () => {
    await expect(connectHttp(createV2Client(era), server.mcpUrl)).rejects.toThrow(/401|Unauthorized|API key/);
  });
});
