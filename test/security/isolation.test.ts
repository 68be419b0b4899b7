/**
 * Isolation between callers, tried as an attacker would, over real HTTP (issue 11, items 1-4, 10, 15).
 * Anonymous callers are told apart by the Mcp-Session-Id the server issued them; authenticated ones by the
 * principal of a token a real issuer signed (and, for two clients of one principal, their sessions).
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { createMcpHandler } from '../../api/mcp.js';
import { agentDefinitions } from '../../lib/agent/index.js';
import { createApp } from '../../lib/app.js';
import { createBearerAuth, readAuthConfig, readSignIn } from '../../lib/auth/index.js';
import type { ToolDefinition } from '../../lib/server/registry.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { openSession, post, readSse } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

const SCOPE = 'agents:chat';
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };

/** Calls of the `hold` tool, by key: each runs until the test releases it or it is cancelled. */
interface Held {
  started: Promise<void>;
  released: Promise<void>;
  start(): void;
  release(): void;
}
const held = new Map<string, Held>();
function holdEntry(key: string): Held {
  let entry = held.get(key);
  if (!entry) {
    const parts: Partial<Held> = {};
    parts.started = new Promise<void>((resolve) => (parts.start = resolve));
    parts.released = new Promise<void>((resolve) => (parts.release = resolve));
    held.set(key, (entry = parts as Held));
  }
  return entry;
}

const TOOLS: ToolDefinition<any>[] = [
  {
    name: 'hold',
    description: 'Runs until released or cancelled; with closeStream it first ends the client stream early (SEP-1699).',
    input: z.object({ key: z.string(), closeStream: z.boolean().optional() }),
    async run({ key, closeStream }: { key: string; closeStream?: boolean }, ctx) {
      const entry = holdEntry(key);
      if (closeStream) ctx.outbound?.closeStream?.();
      entry.start();
      const aborted = new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      await Promise.race([entry.released, aborted]);
      return { content: [{ type: 'text', text: ctx.signal.aborted ? 'aborted' : 'released' }] };
    },
  },
  {
    name: 'ask',
    description: 'Asks the client a question (elicitation) and returns the answer.',
    async run(_args, ctx) {
      const answer = await ctx.requestClient('elicitation/create', { message: 'Who are you?', requestedSchema: { type: 'object', properties: {} } });
      return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
    },
  },
];

let upstream: Upstream;
let issuer: TestIssuer;
let open: TestServer;
let guarded: TestServer;

beforeAll(async () => {
  [upstream, issuer] = await Promise.all([startUpstream(), startIssuer()]);
  const env = {
    AGENTS: JSON.stringify([
      { id: 'echo', format: 'openai', url: `${upstream.url}/v1`, model: 'test-model' },
      { id: 'plat', format: 'platform', url: `${upstream.url}/platform/chat`, upstreamAgent: 'support-bot' },
    ]),
  };
  const appOf = (auth: boolean) => {
    const authEnv = { AUTH_ISSUER: issuer.issuer, AUTH_SCOPES: SCOPE };
    const config = auth ? readAuthConfig(authEnv) : undefined;
    return createApp({
      definitions: [agentDefinitions(env), { tools: TOOLS }],
      stateSecret: 'the deployment secret, 32 characters or more',
      origin: { local: true, allowedOrigins: new Set() },
      auth: config && createBearerAuth(readSignIn(authEnv), authEnv),
      defaultScopes: config?.scopes,
    });
  };
  [open, guarded] = await Promise.all([startTestServer(createMcpHandler(appOf(false))), startTestServer(createMcpHandler(appOf(true)))]);
}, 30_000);
afterAll(async () => {
  await Promise.all([open?.close(), guarded?.close(), issuer?.close()]);
  upstream?.stop();
});

const toolCall = (id: number | string, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});
const chat = (args: Record<string, unknown>, id: number | string = 1) => toolCall(id, 'chat_with_agent', args);
const cancel = (requestId: number | string) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'not mine' } });
const resultOf = async (response: Response | Promise<Response>) => (await (await response).json()).result;

async function tokenFor(subject: string): Promise<Record<string, string>> {
  const now = Math.floor(Date.now() / 1000);
  const token = await issuer.mint({ iss: issuer.issuer, aud: guarded.mcpUrl, sub: subject, scope: SCOPE, client_id: 'cli', iat: now, exp: now + 300 });
  return { authorization: `Bearer ${token}` };
}

describe('conversations (anonymous, the default)', () => {
  test('two strangers who say the same words at the same moment get separate conversations', async () => {
    const message = `fault:slow hello there ${crypto.randomUUID()}`;
    const [a, b] = await Promise.all([
      resultOf(post(open.mcpUrl, chat({ agent_id: 'echo', message }), LEGACY)),
      resultOf(post(open.mcpUrl, chat({ agent_id: 'echo', message }), LEGACY)),
    ]);
    expect(a.structuredContent.session_id).not.toBe(b.structuredContent.session_id);
    expect(await upstream.requestsFor(message)).toHaveLength(2);
  });

  test('the same request id and words from two clients run twice: a retry is joined only for its own caller', async () => {
    const message = `fault:slow same id ${crypto.randomUUID()}`;
    const [alice, bob] = await Promise.all([openSession(open.mcpUrl), openSession(open.mcpUrl)]);
    await Promise.all([post(open.mcpUrl, chat({ agent_id: 'echo', message }, 2), alice), post(open.mcpUrl, chat({ agent_id: 'echo', message }, 2), bob)]);
    expect(await upstream.requestsFor(message)).toHaveLength(2);
  });

  test('a conversation id the server did not issue is refused, so strangers cannot meet by choosing one name', async () => {
    const message = `joining main ${crypto.randomUUID()}`;
    const result = await resultOf(post(open.mcpUrl, chat({ agent_id: 'echo', message, session_id: 'main' }), LEGACY));
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('Omit session_id to start a new conversation');
    expect(await upstream.requestsFor(message)).toHaveLength(0);
  });

  test('a session_id holding a lone surrogate is invalid arguments, never an internal error', async () => {
    const body = JSON.stringify(chat({ agent_id: 'echo', message: 'hi', session_id: 'PLACEHOLDER' })).replace('PLACEHOLDER', '\\ud800');
    const response = await fetch(open.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...LEGACY }, body });
    const { result } = await response.json();
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('Invalid arguments: session_id');
  });
});

describe('conversations across principals (auth on)', () => {
  test('a platform upstream sees an id derived from caller, agent and conversation, never the client\'s', async () => {
    const alice = await tokenFor('alice');
    const opening = `alice opens ${crypto.randomUUID()}`;
    const first = await resultOf(post(guarded.mcpUrl, chat({ agent_id: 'plat', message: opening }), { ...LEGACY, ...alice }));
    const { session_id } = first.structuredContent;
    const [request] = await upstream.requestsFor(opening);
    expect(request!.body!.session_id).toEqual(expect.any(String));
    expect(request!.body!.session_id).not.toBe(session_id);
  });

  test('bob holding alice\'s conversation id is refused and the upstream never hears him', async () => {
    const [alice, bob] = [await tokenFor('alice'), await tokenFor('bob')];
    const first = await resultOf(post(guarded.mcpUrl, chat({ agent_id: 'plat', message: `alice ${crypto.randomUUID()}` }), { ...LEGACY, ...alice }));
    const { session_id } = first.structuredContent;
    const sneak = `bob reads alice ${crypto.randomUUID()}`;
    const bobs = await resultOf(post(guarded.mcpUrl, chat({ agent_id: 'plat', message: sneak, session_id }), { ...LEGACY, ...bob }));
    expect(bobs.isError).toBe(true);
    expect(await upstream.requestsFor(sneak)).toHaveLength(0);
    const again = await resultOf(post(guarded.mcpUrl, chat({ agent_id: 'plat', message: 'alice again', session_id }), { ...LEGACY, ...alice }));
    expect(again.content[0].text).toBe('Platform support-bot turn 2: alice again');
  });

  test('a session id issued to alice is not a session for bob: 404', async () => {
    const alice = await openSession(guarded.mcpUrl, '2025-11-25', await tokenFor('alice'));
    const bob = await tokenFor('bob');
    const response = await post(guarded.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...alice, ...bob });
    expect(response.status).toBe(404);
  });
});

describe('answers to the server\'s requests (elicitation, sampling, roots)', () => {
  async function askOn(url: string, session: Record<string, string>) {
    const stream = readSse(await post(url, toolCall('q1', 'ask', {}), session));
    let event = await stream.next();
    while (event && !event.data) event = await stream.next(); // the priming event carries no data
    const request = JSON.parse(event!.data);
    expect(request.method).toBe('elicitation/create');
    return { stream, id: request.id as string };
  }

  test('a stranger\'s answer, with its own session or none, is refused and does not reach my call', async () => {
    const [mine, stranger] = await Promise.all([openSession(open.mcpUrl), openSession(open.mcpUrl)]);
    const { stream, id } = await askOn(open.mcpUrl, mine);
    const forged = { jsonrpc: '2.0', id, result: { action: 'accept', content: { name: 'mallory' } } };
    expect((await post(open.mcpUrl, forged, stranger)).status).toBe(400);
    expect((await post(open.mcpUrl, forged, LEGACY)).status).toBe(400);
    const answer = await post(open.mcpUrl, { jsonrpc: '2.0', id, result: { action: 'accept', content: { name: 'ada' } } }, mine);
    expect(answer.status).toBe(202);
    const [reply] = await stream.rest();
    expect(reply.result.content[0].text).toContain('ada');
    expect(reply.result.content[0].text).not.toContain('mallory');
  });

  test('bob\'s token cannot answer alice\'s elicitation', async () => {
    const alice = await openSession(guarded.mcpUrl, '2025-11-25', await tokenFor('alice'));
    const { stream, id } = await askOn(guarded.mcpUrl, alice);
    const bob = await tokenFor('bob');
    expect((await post(guarded.mcpUrl, { jsonrpc: '2.0', id, result: { action: 'decline' } }, { ...LEGACY, ...bob })).status).toBe(400);
    await post(guarded.mcpUrl, { jsonrpc: '2.0', id, result: { action: 'accept', content: { name: 'alice' } } }, alice);
    const [reply] = await stream.rest();
    expect(reply.result.content[0].text).toContain('"action":"accept"');
  });
});

describe('cancellations', () => {
  test('a stranger\'s cancellation does not cancel my call, though our clients number requests alike', async () => {
    const [mine, stranger] = await Promise.all([openSession(open.mcpUrl), openSession(open.mcpUrl)]);
    const key = `anonymous ${crypto.randomUUID()}`;
    const reply = post(open.mcpUrl, toolCall(2, 'hold', { key }), mine);
    await holdEntry(key).started;
    expect((await post(open.mcpUrl, cancel(2), stranger)).status).toBe(202);
    expect((await post(open.mcpUrl, cancel(2), LEGACY)).status).toBe(202);
    holdEntry(key).release();
    expect((await resultOf(reply)).content[0].text).toBe('released');
  });

  test('two clients of one principal: one client\'s cancellation leaves the other\'s call running', async () => {
    const token = await tokenFor('alice');
    const [laptop, phone] = await Promise.all([openSession(guarded.mcpUrl, '2025-11-25', token), openSession(guarded.mcpUrl, '2025-11-25', token)]);
    const key = `one principal ${crypto.randomUUID()}`;
    const reply = post(guarded.mcpUrl, toolCall(2, 'hold', { key }), laptop);
    await holdEntry(key).started;
    expect((await post(guarded.mcpUrl, cancel(2), phone)).status).toBe(202);
    holdEntry(key).release();
    expect((await resultOf(reply)).content[0].text).toBe('released');
  });

  test('my own cancellation cancels my call, and the cancelled request gets no reply', async () => {
    const mine = await openSession(open.mcpUrl);
    const key = `own cancel ${crypto.randomUUID()}`;
    const response = post(open.mcpUrl, toolCall(3, 'hold', { key }, { progressToken: 'p' }), mine);
    await holdEntry(key).started;
    await post(open.mcpUrl, cancel(3), mine);
    const events = await readSse(await response).rest();
    expect(events.filter((e) => e.id === 3)).toEqual([]);
  });
});

describe('stream resumption', () => {
  test('only the caller that made a call can resume its stream', async () => {
    const [mine, stranger] = await Promise.all([openSession(open.mcpUrl), openSession(open.mcpUrl)]);
    const key = `resume ${crypto.randomUUID()}`;
    const priming = await readSse(await post(open.mcpUrl, toolCall('r1', 'hold', { key, closeStream: true }), mine)).next();
    const resume = (headers: Record<string, string>) =>
      fetch(open.mcpUrl, { headers: { ...headers, accept: 'text/event-stream', 'last-event-id': priming!.id! } });
    expect((await resume(stranger)).status).toBe(404);
    expect((await resume(LEGACY)).status).toBe(404);
    const resumed = await resume(mine);
    expect(resumed.status).toBe(200);
    holdEntry(key).release();
    const messages = await readSse(resumed).rest();
    expect(messages.at(-1)).toMatchObject({ id: 'r1', result: { content: [{ text: 'released' }] } });
  });
});
