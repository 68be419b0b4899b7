/**
 * The usage counters (issue 46), driven through real HTTP against the deployment's app on the memory store: every
 * call that ran is counted once, with its known tokens, unknown usage as unknown, failures by their cause, refusals by
 * their reason; callers by class, in rankings whose bound a flood of address-only callers cannot use to push anyone
 * out. The shared store's half is test/multi-instance/usage.test.ts.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp, type App } from '../../lib/app.js';
import { bucketKey, bucketStart, RESOLUTIONS, TOP_CALLERS_PER_CLASS } from '../../lib/usage/buckets.js';
import { readUsage } from '../../lib/usage/read.js';
import type { UsageView } from '../../lib/usage/view.js';
import { USAGE_META } from '../../lib/usage/report.js';
import { bearer, keyLine, mintTestKey } from '../support/api-keys.js';
import { postFrom } from '../support/from-address.js';
import { createMeteredAgent } from '../support/metered-agent.js';
import { openSession, post } from '../support/rpc.js';
import { startTestServer, type TestServer } from '../support/server.js';

const IP_LIMIT = 8;
const FLOOD = 60;
const NO_SESSION = { 'mcp-protocol-version': '2025-11-25' };

let app: App;
let server: TestServer;
beforeAll(async () => {
  app = createDefaultApp({ MCP_LOG: 'off', RATE_LIMIT_IP: `${IP_LIMIT}/1m` }, { agents: [createMeteredAgent('metered').definition] });
  server = await startTestServer(createMcpHandler(app));
});
afterAll(() => server?.close());

let id = 0;
const chat = (message: string) => ({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message } } });
const legacy = (session: Record<string, string>, message: string) => post(server.mcpUrl, chat(message), session).then((r) => r.json());

/** The hour's counters once every request made so far is written: they are written once it is done, beside its reply. */
async function counted(from: App): Promise<UsageView> {
  await from.usage!.settled();
  return readUsage(from.store, 'hour');
}

describe('usage counters on the memory store', () => {
  test('calls, known tokens, unknown usage and failures are counted as they happened, per agent and per caller', async () => {
    const session = await openSession(server.mcpUrl);
    const replies = [
      await legacy(session, '2x100+10'),
      await legacy(session, '2x100+10'),
      await legacy(session, '1xunknown'),
      await legacy(session, 'not a plan'),
    ];
    expect(replies.map((r) => r.result.isError ?? false)).toEqual([false, false, false, true]);
    // What each call's meter said in its result: the counters must say the same (the failed call's one model request has unknown usage).
    const usage = replies.map((r) => r.result._meta[USAGE_META]);
    const known = { input: usage.reduce((n, u) => n + u.input, 0), output: usage.reduce((n, u) => n + u.output, 0) };
    expect(known).toEqual({ input: 400, output: 40 });
    const unknown = usage.filter((u) => u.unknownRequests > 0).length;
    expect(unknown).toBe(2);
    const view = await counted(app);
    expect(view.totals).toEqual({ calls: 4, errors: 1, refusals: 0, inputTokens: known.input, outputTokens: known.output, unknownUsageCalls: unknown, earnedUsd: '0' });
    expect(Object.values(view.errors)).toEqual([1]);
    expect(view.series.map((s) => s.agent)).toEqual(['metered']);
    const points = view.series[0]!.points;
    expect(points).toHaveLength(60);
    expect(points.reduce((n, p) => n + p.calls, 0)).toBe(4);
    expect(points.reduce((n, p) => n + p.inputTokens, 0)).toBe(400);
    expect(view.topCallers).toEqual([{ label: expect.stringMatching(/^session:[0-9a-f]{8}$/), kind: 'session', calls: 4, inputTokens: 400, outputTokens: 40 }]);
    // The day and month windows read the same calls from their own buckets.
    for (const window of ['day', 'month'] as const) expect((await readUsage(app.store, window)).totals.calls).toBe(4);
  });

  test('a caller over its rate limit is refused, and the refusals land under their reason', async () => {
    const before = await readUsage(app.store, 'hour');
    const statuses: number[] = [];
    for (let i = 0; i < IP_LIMIT + 2; i++) statuses.push((await postFrom('127.0.0.200', server.mcpUrl, chat('1x1+1'), NO_SESSION)).status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    const view = await counted(app);
    expect(view.refusals).toEqual({ 'rate-limit': 2 });
    expect(view.totals.calls).toBe(before.totals.calls + IP_LIMIT);
    const address = view.topCallers.find((c) => c.kind === 'address');
    // Labelled by a keyed hash: never the address itself.
    expect(address).toEqual({ label: expect.stringMatching(/^ip:[0-9a-f]{8}$/), kind: 'address', calls: IP_LIMIT, inputTokens: IP_LIMIT, outputTokens: IP_LIMIT });
    expect(JSON.stringify(view)).not.toContain('127.0.0');
  });

  test(`a flood of ${FLOOD} new address-only callers keeps the ranking to its bound and pushes out neither a lighter session nor the heavier address`, async () => {
    // A session caller lighter than every caller of the flood: only its class's own ranking keeps it.
    const light = await openSession(server.mcpUrl);
    expect((await legacy(light, '1x1+0')).result.isError).toBeUndefined();
    const before = await counted(app);
    const lightLabel = before.topCallers.find((c) => c.kind === 'session' && c.calls === 1)!.label;
    const heavyAddress = before.topCallers.find((c) => c.kind === 'address')!;
    for (let i = 0; i < FLOOD; i++) expect((await postFrom(`127.0.1.${i + 1}`, server.mcpUrl, chat('1x1+1'), NO_SESSION)).status).toBe(200);
    const view = await counted(app);
    // The totals drop nothing.
    expect(view.totals.calls).toBe(before.totals.calls + FLOOD);
    expect(view.totals.inputTokens).toBe(before.totals.inputTokens + FLOOD);
    expect(view.topCallersTruncated).toBe(true);
    expect(view.topCallers).toContainEqual(heavyAddress);
    expect(view.topCallers).toContainEqual(before.topCallers.find((c) => c.kind === 'session' && c.calls === 4));
    // Every minute bucket the flood wrote to (it may straddle a minute) holds at most the bound of addresses, and the
    // light session's counters are still there.
    const minute = RESOLUTIONS[0]!;
    const now = bucketStart(minute, Date.now());
    const buckets = await app.store.readTallies([now - 120, now - 60, now].map((start) => bucketKey(minute, start)));
    for (const bucket of buckets) expect(Object.keys(bucket).filter((name) => name.startsWith('a:c:')).length).toBeLessThanOrEqual(TOP_CALLERS_PER_CLASS);
    expect(buckets.reduce((n, bucket) => n + (bucket['a:dropped'] ?? 0), 0)).toBeGreaterThan(0);
    expect(buckets.reduce((n, bucket) => n + (bucket[`s:c:${lightLabel}`] ?? 0), 0)).toBe(1);
  });
});

describe('usage counters of callers who sign in, and of budgets', () => {
  const [alice, bob] = [mintTestKey(), mintTestKey()];
  let keyed: App;
  let keyedServer: TestServer;
  beforeAll(async () => {
    keyed = createDefaultApp({
      MCP_LOG: 'off', AUTH_SCOPES: 'agents:chat', TOKEN_BUDGET_CALLER: '100/1d',
      MCP_API_KEYS: [keyLine('alice', alice, 'scopes=agents:chat'), keyLine('bob', bob, 'scopes=other')].join('\n'),
    }, { agents: [createMeteredAgent('metered').definition] });
    keyedServer = await startTestServer(createMcpHandler(keyed));
  });
  afterAll(() => keyedServer?.close());

  const send = (message: string, headers: Record<string, string> = {}) => post(keyedServer.mcpUrl, chat(message), { ...NO_SESSION, ...headers });

  test('a key is counted by its name; no key, a key without the scope and a spent token budget are refusals by their reason', async () => {
    expect((await (await send('1x100+10', bearer(alice))).json()).result.isError).toBeUndefined();
    const overBudget = await (await send('1x1+1', bearer(alice))).json();
    expect(overBudget.result.isError).toBe(true);
    expect((await send('1x1+1')).status).toBe(401);
    const unscoped = await send('1x1+1', bearer(bob));
    expect(unscoped.status).toBe(403);
    const view = await counted(keyed);
    expect(view.refusals).toEqual({ 'token-budget': 1, 'sign-in': 1, scope: 1 });
    expect(view.totals).toMatchObject({ calls: 1, errors: 0, refusals: 3, inputTokens: 100, outputTokens: 10 });
    expect(view.topCallers).toEqual([{ label: 'api-key:alice', kind: 'api-key', calls: 1, inputTokens: 100, outputTokens: 10 }]);
    expect(JSON.stringify(view)).not.toContain(alice);
  });
});
