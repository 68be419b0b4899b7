/**
 * Test and bench support: what calls cost the shared store, read from the Upstash REST bridge's request log
 * (each request one HTTP round trip; each command in it one billed command, a script's EVALSHA one). Used by
 * test/store/cost.test.ts (count assertions) and bench/store-cost.mjs (the table in docs/performance.md).
 */

import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp } from '../../lib/app.js';
import type { UsageCounter } from '../../lib/usage/counter.js';
import { openSession, post, postModern, readSse } from './rpc.js';
import { startTestServer, type TestServer } from './server.js';
import type { SharedRedis } from './shared-redis.js';
import type { BridgeRequest } from './upstash-bridge.js';

export interface Cost {
  /** HTTP requests to the store. */
  roundTrips: number;
  /** Requests on one path: parallel ones count once. */
  serial: number;
  /** Billed commands (a pipeline's commands each, a script one). */
  commands: number;
  /** Commands by name, e.g. { EVALSHA: 2, MGET: 6 }. */
  byCommand: Record<string, number>;
  /** Characters sent to the store, every request body together. */
  bytesSent: number;
}

export function costOf(requests: BridgeRequest[]): Cost {
  let serial = 0;
  let busyUntil = -Infinity;
  for (const r of [...requests].sort((a, b) => a.start - b.start)) {
    const end = r.end ?? r.start;
    if (r.start >= busyUntil) {
      serial++;
      busyUntil = end;
    } else {
      busyUntil = Math.max(busyUntil, end);
    }
  }
  const byCommand: Record<string, number> = {};
  for (const name of requests.flatMap((r) => r.commands)) byCommand[name] = (byCommand[name] ?? 0) + 1;
  return {
    roundTrips: requests.length, serial, commands: requests.reduce((n, r) => n + r.commands.length, 0), byCommand,
    bytesSent: requests.reduce((n, r) => n + r.bytes, 0),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once the store has been quiet for `settleMs`: no request in flight and none new. On a loaded machine
 * (test files run four at a time) what a call leaves running can reach the store later than any fixed wait.
 */
async function quiet(redis: SharedRedis, settleMs: number, atMostMs = 5_000): Promise<void> {
  const until = performance.now() + atMostMs;
  for (let seen = -1; performance.now() < until;) {
    const { requests } = redis.bridge;
    if (requests.length === seen && requests.every((r) => r.end !== undefined)) return;
    seen = requests.length;
    await sleep(settleMs);
  }
}

/** The usage counters of the servers started here, which write a call's tally after its reply. */
const counters = new Set<UsageCounter>();

/** Every started server's usage tallies written: those of calls whose reply the client has read included. */
const countersSettled = () => Promise.all([...counters].map((counter) => counter.settled()));

/**
 * The store traffic of `run`, including what it leaves running in the background until the store is quiet, and
 * none of what came before it (the previous call's background work is waited out first).
 */
export async function measure<T>(redis: SharedRedis, run: () => Promise<T>, settleMs = 100): Promise<{ cost: Cost; value: T }> {
  // A call's usage tally goes out once its stream has ended, which on a loaded machine can be well after its client
  // read the reply: the counters say when it is written, so the previous call's is never counted as this call's,
  // nor this call's left out. The quiet before is longer than the watch tick the tests use (STORE_WATCH_MS=200), so
  // no earlier call is still waiting on the store either.
  await countersSettled();
  await quiet(redis, Math.max(settleMs, 300));
  const from = redis.bridge.requests.length;
  const value = await run();
  await countersSettled();
  await quiet(redis, settleMs);
  return { cost: costOf(redis.bridge.requests.slice(from)), value };
}

export interface CostServer {
  url: string;
  close(): Promise<void>;
}

/** agent-mcp as deployed (createDefaultApp) on the bridge, with one openai-format agent at `upstreamUrl`. */
export async function startCostServer(redis: SharedRedis, upstreamUrl: string, env: Record<string, string> = {}): Promise<CostServer> {
  const app = createDefaultApp({
    ...redis.bridge.env,
    MCP_LOG: 'off',
    AGENTS: JSON.stringify([{ id: 'echo', format: 'openai', url: `${upstreamUrl}/v1`, model: 'test-model' }]),
    ...env,
  });
  const server: TestServer = await startTestServer(createMcpHandler(app));
  if (app.usage) counters.add(app.usage);
  return {
    url: server.mcpUrl,
    close: () => {
      if (app.usage) counters.delete(app.usage);
      return server.close();
    },
  };
}

const chatCall = (id: string | number, args: Record<string, unknown>, progress = false) => ({
  jsonrpc: '2.0', id, method: 'tools/call',
  params: { name: 'chat_with_agent', arguments: args, ...(progress ? { _meta: { progressToken: `p-${id}` } } : {}) },
});

/** Reads a legacy reply, JSON or SSE, and returns its JSON-RPC result. */
async function legacyResult(response: Response): Promise<any> {
  if (response.headers.get('content-type')?.startsWith('application/json')) return (await response.json()).result;
  const messages = await readSse(response).rest();
  return (messages.at(-1) as any)?.result;
}

export const scenarios = {
  async newChatModern(url: string, headers: Record<string, string> = {}) {
    const { result } = await (await postModern(url, 1, 'tools/call', { name: 'chat_with_agent', arguments: { message: 'hello' } }, { headers })).json();
    return result.structuredContent.session_id as string;
  },
  /** The same call, answered with a status only (a refusal). */
  async newChatModernStatus(url: string, headers: Record<string, string> = {}) {
    const response = await postModern(url, 1, 'tools/call', { name: 'chat_with_agent', arguments: { message: 'hello' } }, { headers });
    await response.body?.cancel();
    return response.status;
  },
  async newChatLegacy(url: string, session: Record<string, string>, message = 'hello', id: string | number = crypto.randomUUID()) {
    return legacyResult(await post(url, chatCall(id, { message }, true), session));
  },
  async continuedModern(url: string, sessionId: string) {
    const { result } = await (await postModern(url, 2, 'tools/call', { name: 'chat_with_agent', arguments: { message: 'again', session_id: sessionId } })).json();
    return result;
  },
  async continuedLegacy(url: string, session: Record<string, string>, sessionId: string, message = 'again', id: string | number = crypto.randomUUID()) {
    return legacyResult(await post(url, chatCall(id, { message, session_id: sessionId }, true), session));
  },
  /** A legacy call with progress whose upstream takes `ms`. */
  async longLegacy(url: string, session: Record<string, string>, ms: number, id: string | number = crypto.randomUUID()) {
    return legacyResult(await post(url, chatCall(id, { message: `fault:wait ${ms} ${crypto.randomUUID()}` }, true), session));
  },
  /** The same call twice at once (a client's retry): the second joins the first. */
  async retryJoined(url: string, session: Record<string, string>, ms: number) {
    const call = chatCall(crypto.randomUUID(), { message: `fault:wait ${ms} ${crypto.randomUUID()}` }, true);
    const first = post(url, call, session).then(legacyResult);
    await sleep(Math.min(50, ms / 4));
    const second = post(url, call, session).then(legacyResult);
    return Promise.all([first, second]);
  },
  /** Two turns of one conversation at once: the second waits for the first. */
  async queuedTurns(url: string, session: Record<string, string>, sessionId: string, ms: number) {
    const first = scenarios.continuedLegacy(url, session, sessionId, `fault:wait ${ms} ${crypto.randomUUID()}`);
    await sleep(Math.min(50, ms / 4));
    const second = scenarios.continuedLegacy(url, session, sessionId, 'after that');
    return Promise.all([first, second]);
  },
  /**
   * A client whose stream drops after the first event of a call whose upstream takes `ms`, and which resumes
   * with Last-Event-ID: the log is written from the drop on, and the resumed stream follows it to the end.
   */
  async resumedStream(url: string, session: Record<string, string>, ms: number) {
    const abort = new AbortController();
    const response = await post(url, chatCall(crypto.randomUUID(), { message: `fault:wait ${ms} ${crypto.randomUUID()}` }, true), session, { signal: abort.signal });
    const stream = readSse(response);
    let last: string | undefined;
    for (let i = 0; i < 2; i++) last = (await stream.next())?.id ?? last;
    abort.abort();
    await sleep(50);
    const resumed = await fetch(url, { headers: { ...session, accept: 'text/event-stream', 'last-event-id': last! } });
    const rest = await readSse(resumed).rest();
    return { status: resumed.status, last: rest.at(-1) as any, events: rest.length };
  },
  openSession,
};
