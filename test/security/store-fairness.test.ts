/**
 * The memory store is shared fairly, tried as an attacker would over real HTTP (issue 25 item 3;
 * docs/architecture.md rule 12): a flood of large chat calls by callers without an identity, or by another
 * principal, costs the flooder its own state and never a victim's conversation. The store is small (2 MB, so
 * 500 KB a caller) and a flood is 60 calls of 99 KB, three times the whole.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { agentDefinitions } from '../../lib/agent/index.js';
import { createApp } from '../../lib/app.js';
import { createBearerAuth, readSignIn } from '../../lib/auth/index.js';
import { MemoryStore } from '../../lib/store/memory.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { openSession, post, postModern } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

const FLOOD_CALLS = 60;
const LARGE = 'x'.repeat(99_000);

/** An in-process agent that says which turn of its conversation this is. */
const turns = [{
  id: 'turns', name: 'Turns', description: 'Counts the turns of a conversation.',
  async *reply({ history }: { history: unknown[] }) {
    yield `Turn ${history.length / 2 + 1}`;
  },
}];

let issuer: TestIssuer;
let open: TestServer;
let guarded: TestServer;
let openStore: MemoryStore;
let guardedStore: MemoryStore;

beforeAll(async () => {
  issuer = await startIssuer();
  const appOf = (store: MemoryStore, auth: boolean) => {
    const authEnv = { AUTH_ISSUER: issuer.issuer };
    return createApp({
      definitions: [agentDefinitions({}, turns)],
      stateSecret: 'the deployment secret, 32 characters or more',
      origin: { local: true, allowedOrigins: new Set() },
      store,
      auth: auth ? createBearerAuth(readSignIn(authEnv), authEnv) : undefined,
    });
  };
  [openStore, guardedStore] = [new MemoryStore({ maxBytes: 2_000_000 }), new MemoryStore({ maxBytes: 2_000_000 })];
  [open, guarded] = await Promise.all([
    startTestServer(createMcpHandler(appOf(openStore, false))),
    startTestServer(createMcpHandler(appOf(guardedStore, true))),
  ]);
}, 30_000);
afterAll(async () => {
  await Promise.all([open?.close(), guarded?.close(), issuer?.close()]);
});

async function bearer(subject: string): Promise<Record<string, string>> {
  const now = Math.floor(Date.now() / 1000);
  const token = await issuer.mint({ iss: issuer.issuer, aud: guarded.mcpUrl, sub: subject, client_id: 'cli', iat: now, exp: now + 300 });
  return { authorization: `Bearer ${token}` };
}

/** One chat turn on the modern wire; its reply and the conversation it belongs to. */
async function chatModern(url: string, args: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await postModern(url, crypto.randomUUID(), 'tools/call', { name: 'chat_with_agent', arguments: args }, { headers });
  const { result } = await response.json();
  return { reply: result.structuredContent?.reply as string, sessionId: result.structuredContent?.session_id as string, isError: result.isError };
}

async function chatLegacy(url: string, args: Record<string, unknown>, session: Record<string, string>) {
  const response = await post(url, { jsonrpc: '2.0', id: crypto.randomUUID(), method: 'tools/call', params: { name: 'chat_with_agent', arguments: args } }, session);
  const { result } = await response.json();
  return { reply: result.structuredContent?.reply as string, sessionId: result.structuredContent?.session_id as string };
}

describe('a flood of large chat calls costs the flooder its own state, never a victim\'s conversation', () => {
  test('callers without an identity flooding the store leave a session\'s conversation where it was', async () => {
    const session = await openSession(open.mcpUrl);
    const first = await chatLegacy(open.mcpUrl, { message: 'hello' }, session);
    expect((await chatLegacy(open.mcpUrl, { message: 'again', session_id: first.sessionId }, session)).reply).toBe('Turn 2');
    for (let i = 0; i < FLOOD_CALLS; i++) await chatModern(open.mcpUrl, { message: `${i} ${LARGE}` });
    expect(openStore.bytes).toBeLessThanOrEqual(2_000_000);
    expect((await chatLegacy(open.mcpUrl, { message: 'still there?', session_id: first.sessionId }, session)).reply).toBe('Turn 3');
  });

  test('another principal flooding the store loses its own oldest conversations, and the victim\'s stays', async () => {
    const [alice, mallory] = [await bearer('alice'), await bearer('mallory')];
    const first = await chatModern(guarded.mcpUrl, { message: 'hello' }, alice);
    expect((await chatModern(guarded.mcpUrl, { message: 'again', session_id: first.sessionId }, alice)).reply).toBe('Turn 2');
    const flood: string[] = [];
    for (let i = 0; i < FLOOD_CALLS; i++) flood.push((await chatModern(guarded.mcpUrl, { message: `${i} ${LARGE}` }, mallory)).sessionId);
    expect((await chatModern(guarded.mcpUrl, { message: 'still there?', session_id: first.sessionId }, alice)).reply).toBe('Turn 3');
    expect(guardedStore.bytesOf({ owner: JSON.stringify(['mallory']) })).toBeLessThanOrEqual(guardedStore.budget.maxBytesPerCaller);
    // The flooder's own oldest conversation is what went, and its newest is kept.
    expect((await chatModern(guarded.mcpUrl, { message: 'first?', session_id: flood[0] }, mallory)).reply).toBe('Turn 1');
    expect((await chatModern(guarded.mcpUrl, { message: 'last?', session_id: flood.at(-1) }, mallory)).reply).toBe('Turn 2');
  });

  test('sessions filling the store cannot refuse a caller without an identity, nor a principal (issue 42 item 8, scaled down)', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    // One store behind two front doors: without sign-in (sessions, callers without one) and with it (principals).
    const store = new MemoryStore({ maxBytes: 2_000_000 });
    const appOf = (auth: boolean) => {
      const authEnv = { AUTH_ISSUER: issuer.issuer };
      return createApp({
        definitions: [agentDefinitions({})],
        stateSecret: 'the deployment secret, 32 characters or more',
        origin: { local: true, allowedOrigins: new Set() },
        store,
        auth: auth ? createBearerAuth(readSignIn(authEnv), authEnv) : undefined,
      });
    };
    const [plain, signedIn] = await Promise.all([startTestServer(createMcpHandler(appOf(false))), startTestServer(createMcpHandler(appOf(true)))]);
    try {
      const sessions = await Promise.all(Array.from({ length: 8 }, () => openSession(plain.mcpUrl)));
      const flood = async (rounds: number) => {
        for (let round = 0; round < rounds; round++) {
          for (const session of sessions) expect((await chatLegacy(plain.mcpUrl, { message: `${round} ${LARGE}` }, session)).reply).toContain('Turn 1');
        }
      };
      await flood(3);
      // The sessions hold the whole store: before issue 42, every call without an identity was refused from here on.
      expect(store.bytes).toBeGreaterThan(store.budget.maxBytes - 300_000);
      expect(store.bytesOfClass('session')).toBe(store.bytes);
      const anonymous = await chatModern(plain.mcpUrl, { message: `sessionless ${LARGE}` });
      expect(anonymous.isError).toBeUndefined();
      expect(anonymous.reply).toContain('Turn 1');
      const now = Math.floor(Date.now() / 1000);
      const token = await issuer.mint({ iss: issuer.issuer, aud: signedIn.mcpUrl, sub: 'alice', client_id: 'cli', iat: now, exp: now + 300 });
      const alice = await chatModern(signedIn.mcpUrl, { message: `signed in ${LARGE}` }, { authorization: `Bearer ${token}` });
      expect(alice.reply).toContain('Turn 1');
      await flood(2);
      // Their conversations are within their classes' shares: the sessions' flood took none of them.
      expect((await chatModern(plain.mcpUrl, { message: 'and now?', session_id: anonymous.sessionId })).reply).toContain('Turn 2');
      expect((await chatModern(signedIn.mcpUrl, { message: 'and now?', session_id: alice.sessionId }, { authorization: `Bearer ${token}` })).reply).toContain('Turn 2');
      expect(store.bytes).toBeLessThanOrEqual(store.budget.maxBytes);
    } finally {
      vi.restoreAllMocks();
      await Promise.all([plain.close(), signedIn.close()]);
    }
  });

  test('a conversation grown larger than one caller may hold is refused before its agent runs, and its caller is told to start a new one', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const small = await startTestServer(createMcpHandler(createApp({
      definitions: [agentDefinitions({}, turns)],
      origin: { local: true, allowedOrigins: new Set() },
      store: new MemoryStore({ maxBytes: 1_000_000, maxBytesPerCaller: 150_000 }),
    })));
    try {
      const session = await openSession(small.mcpUrl);
      const first = await chatLegacy(small.mcpUrl, { message: LARGE }, session);
      const response = await post(small.mcpUrl, {
        jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message: LARGE, session_id: first.sessionId } },
      }, session);
      expect((await response.json()).result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'This conversation has grown larger than the server keeps for one caller; the agent was not asked. Start a new conversation (omit session_id).' }],
      });
      expect((await chatLegacy(small.mcpUrl, { message: 'short', session_id: first.sessionId }, session)).reply).toBe('Turn 2');
    } finally {
      vi.restoreAllMocks();
      await small.close();
    }
  });
});

describe('room is settled before the agent runs: a turn the store cannot keep costs no upstream request (issue 42 item 8)', () => {
  let upstream: Upstream;
  beforeAll(async () => {
    upstream = await startUpstream();
  }, 30_000);
  afterAll(() => upstream?.stop());

  const serverWith = (store: MemoryStore) => startTestServer(createMcpHandler(createApp({
    definitions: [agentDefinitions({ AGENTS: JSON.stringify([{ id: 'echo', format: 'openai', url: `${upstream.url}/v1`, model: 'test-model' }]) })],
    stateSecret: 'the deployment secret, 32 characters or more',
    origin: { local: true, allowedOrigins: new Set() },
    store,
  })));

  test('with the store full of security records, a chat is refused before its upstream is asked; the log line names the refusal and nothing else', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxBytes: 100_000, maxBytesSecurity: 90_000 });
    for (let i = 0; i < 8; i++) await store.withBudget('security').set(`paid:${i}`, 'p'.repeat(10_800), 60_000);
    const server = await serverWith(store);
    try {
      // The upstream echoes slowly (its replies stream a character at a time), so messages are short here.
      const messages = [0, 1, 2, 3, 4].map((i) => `${i} ${'m'.repeat(3_000)}`);
      for (const message of messages) {
        const { result } = await (await postModern(server.mcpUrl, crypto.randomUUID(), 'tools/call', { name: 'chat_with_agent', arguments: { message } })).json();
        expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'The server has no room to keep this conversation right now; the agent was not asked. Try again later.' }] });
      }
      for (const message of messages) expect(await upstream.requestsFor(message)).toEqual([]);
      const line = error.mock.calls.at(-1)!;
      expect(line).toHaveLength(1);
      expect(line[0]).toMatch(/^\[agent-mcp\] chat_with_agent: The store refused a write: the store is full \(MEMORY_STORE_MAX_BYTES, MEMORY_STORE_MAX_ENTRIES\) with security records, which are never evicted, and the state of other classes of callers within their shares$/);
    } finally {
      vi.restoreAllMocks();
      await server.close();
    }
  });

  test('a conversation grown past what one caller may hold is refused before its upstream is asked', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const server = await serverWith(new MemoryStore({ maxBytes: 1_000_000, maxBytesPerCaller: 8_000 }));
    try {
      const first = await chatModern(server.mcpUrl, { message: `first ${'f'.repeat(3_000)}` });
      expect(first.isError).toBeUndefined();
      const second = `second ${'s'.repeat(3_000)}`;
      const { result } = await (await postModern(server.mcpUrl, 2, 'tools/call', { name: 'chat_with_agent', arguments: { message: second, session_id: first.sessionId } })).json();
      expect(result.content[0].text).toBe('This conversation has grown larger than the server keeps for one caller; the agent was not asked. Start a new conversation (omit session_id).');
      expect(await upstream.requestsFor(second)).toEqual([]);
    } finally {
      vi.restoreAllMocks();
      await server.close();
    }
  });
});
