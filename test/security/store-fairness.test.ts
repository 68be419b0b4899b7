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
import { createBearerAuth, readAuthConfig } from '../../lib/auth/index.js';
import { MemoryStore } from '../../lib/store/memory.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { openSession, post, postModern } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';

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
      auth: auth ? createBearerAuth(readAuthConfig(authEnv)!, authEnv) : undefined,
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

  test('when callers with an identity hold all the room, a chat of a caller without one is refused, said plainly and logged', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxBytes: 300_000, maxBytesPerCaller: 150_000 });
    const full = await startTestServer(createMcpHandler(createApp({
      definitions: [agentDefinitions({}, turns)],
      origin: { local: true, allowedOrigins: new Set() },
      store,
    })));
    try {
      const sessions = await Promise.all([0, 1, 2].map(() => openSession(full.mcpUrl)));
      const conversations = [];
      for (const session of sessions) {
        const kept = await chatLegacy(full.mcpUrl, { message: 'y'.repeat(90_000) }, session);
        expect(kept.reply).toBe('Turn 1');
        conversations.push(kept.sessionId);
      }
      const { result } = await (await postModern(full.mcpUrl, 1, 'tools/call', { name: 'chat_with_agent', arguments: { message: LARGE } })).json();
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toBe('The server has no room to keep this conversation right now, so it was not saved; try again later.');
      expect(String(warn.mock.calls.at(-1)?.[0])).toMatch(/^\[agent-mcp\] memory store refused 1 write since the last report \(latest: the store is full/);
      for (const [i, session] of sessions.entries()) {
        expect((await chatLegacy(full.mcpUrl, { message: 'and?', session_id: conversations[i] }, session)).reply).toBe('Turn 2');
      }
    } finally {
      vi.restoreAllMocks();
      await full.close();
    }
  });

  test('a conversation grown larger than one caller may hold is not saved, and its caller is told to start a new one', async () => {
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
        content: [{ type: 'text', text: 'This conversation has grown larger than the server keeps for one caller, so this turn was not saved; start a new conversation (omit session_id).' }],
      });
      expect((await chatLegacy(small.mcpUrl, { message: 'short', session_id: first.sessionId }, session)).reply).toBe('Turn 2');
    } finally {
      vi.restoreAllMocks();
      await small.close();
    }
  });
});
