/**
 * examples/tools/notes.ts, served as tools/index.ts would serve it, over real HTTP with the official client, on
 * the memory store and on a real redis-server behind the Upstash REST bridge. Notes are private to their
 * caller; a caller with no identity is told so and keeps nothing.
 */

import { StreamableHTTPClientTransport, type Client } from '@modelcontextprotocol/client';
import * as jose from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp } from '../../lib/app.js';
import exampleAdditions from '../../examples/tools/index.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { answerElicitation, connectHttp, createV2Client, firstText, type Era } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';

const AUDIENCE = 'https://notes.example.test/mcp';
const NO_IDENTITY = /^Notes are kept per caller, and this request carries no identity to keep them under/;

let issuer: TestIssuer;
let redis: SharedRedis;
beforeAll(async () => {
  [issuer, redis] = await Promise.all([startIssuer(), startSharedRedis()]);
});
afterAll(async () => {
  await issuer?.close();
  await redis?.stop();
});

const stores: Array<[string, () => Record<string, string>]> = [
  ['the memory store', () => ({})],
  ['Upstash (real redis-server behind the REST bridge)', () => ({ ...redis.bridge.env })],
];

describe.each(stores)('notes on %s', (_store, storeEnv) => {
  let authed: TestServer;
  let open: TestServer;
  const clients: Client[] = [];
  beforeAll(async () => {
    const base = { ...storeEnv(), MCP_LOG: 'off' };
    authed = await startTestServer(createMcpHandler(createDefaultApp({ ...base, AUTH_ISSUER: issuer.issuer, AUTH_AUDIENCE: AUDIENCE }, exampleAdditions)));
    open = await startTestServer(createMcpHandler(createDefaultApp(base, exampleAdditions)));
  });
  afterAll(async () => {
    await authed?.close();
    await open?.close();
  });
  afterEach(async () => { await Promise.all(clients.splice(0).map((c) => c.close())); });

  async function as(sub: string, era: Era = 'modern'): Promise<Client> {
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.mint({ iss: issuer.issuer, aud: AUDIENCE, sub, iat: now, exp: now + 300 } as jose.JWTPayload);
    const client = createV2Client(era, { elicitation: {} });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(authed.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return client;
  }
  async function anonymous(era: Era): Promise<Client> {
    const client = createV2Client(era, { elicitation: {} });
    clients.push(client);
    await connectHttp(client, open.mcpUrl);
    return client;
  }
  const notesOf = async (c: Client, contains?: string) =>
    ((await c.callTool({ name: 'notes.list', arguments: contains ? { contains } : {} })).structuredContent as { notes: Array<{ id: number; text: string }> })
      .notes.map(({ id, text }) => ({ id, text }));

  test('a signed-in caller adds notes and reads them back, by tool and by notes://mine, on either wire', async () => {
    const sub = `alice-${crypto.randomUUID()}`;
    const modern = await as(sub, 'modern');
    expect((await modern.callTool({ name: 'notes.add', arguments: { text: 'Buy milk' } })).structuredContent).toEqual({ id: 1, count: 1 });
    const legacy = await as(sub, 'legacy');
    expect((await legacy.callTool({ name: 'notes.add', arguments: { text: 'Call the plumber' } })).structuredContent).toEqual({ id: 2, count: 2 });
    expect(await notesOf(modern)).toEqual([{ id: 1, text: 'Buy milk' }, { id: 2, text: 'Call the plumber' }]);
    expect(await notesOf(legacy, 'PLUMB')).toEqual([{ id: 2, text: 'Call the plumber' }]);
    const read = await modern.readResource({ uri: 'notes://mine' });
    expect(JSON.parse((read.contents[0] as { text: string }).text).notes.map((n: { text: string }) => n.text)).toEqual(['Buy milk', 'Call the plumber']);
  });

  test('notes are private: another principal sees none of them', async () => {
    const alice = await as(`alice-${crypto.randomUUID()}`);
    await alice.callTool({ name: 'notes.add', arguments: { text: 'secret' } });
    expect(await notesOf(await as(`bob-${crypto.randomUUID()}`))).toEqual([]);
  });

  test('an empty note is refused as invalid arguments (SEP-1303)', async () => {
    const result = await (await as(`carol-${crypto.randomUUID()}`)).callTool({ name: 'notes.add', arguments: { text: '' } });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/^Invalid arguments for tool notes\.add: text: /);
  });

  test.each<Era>(['legacy', 'modern'])('notes.clear asks first (%s wire): declined keeps the notes, confirmed deletes them', async (era) => {
    const c = await as(`dave-${crypto.randomUUID()}`, era);
    await c.callTool({ name: 'notes.add', arguments: { text: 'one' } });
    let confirm = false;
    const asked = answerElicitation(c, () => ({ confirm }));
    expect(firstText(await c.callTool({ name: 'notes.clear', arguments: {} }))).toBe('Kept your notes.');
    confirm = true;
    expect(firstText(await c.callTool({ name: 'notes.clear', arguments: {} }))).toBe('Deleted 1 notes.');
    expect(asked.map((p) => p.message)).toEqual(['Delete all 1 of your notes?', 'Delete all 1 of your notes?']);
    expect(await notesOf(c)).toEqual([]);
  });

  test('without auth, a 2025-wire client keeps notes under the session the server issued it', async () => {
    const first = await anonymous('legacy');
    await first.callTool({ name: 'notes.add', arguments: { text: 'session note' } });
    expect(await notesOf(first)).toEqual([{ id: 1, text: 'session note' }]);
    expect(await notesOf(await anonymous('legacy'))).toEqual([]);
  });

  test('an anonymous 2026-07-28 request has no identity: the tool says so and nothing is kept', async () => {
    const result = await (await anonymous('modern')).callTool({ name: 'notes.add', arguments: { text: 'lost' } });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(NO_IDENTITY);
  });
});

test('on Upstash the notes live in redis, under a key apart from agent-mcp\'s own state', async () => {
  const [keys] = await redis.direct.send([['KEYS', '*own:*notes*']]);
  expect(Array.isArray(keys) && keys.length).toBeGreaterThan(0);
});
