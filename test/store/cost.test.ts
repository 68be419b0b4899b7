/**
 * What a call costs the shared store, counted at a real redis-server behind the Upstash REST bridge (issue 13):
 * round trips and billed commands, never time. The watch tick is short here (STORE_WATCH_MS=200) and long
 * calls are as long in ticks as their deployed counterparts: a 30-second call at the default 4.5-second tick
 * is 6⅔ ticks, so 1,333 ms here.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { measure, scenarios, startCostServer, type CostServer } from '../support/store-cost.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';
import { startUpstream, type Upstream } from '../support/upstream.js';
import { post } from '../support/rpc.js';
import { bearer, keyLine, mintTestKey } from '../support/api-keys.js';
import { UpstashStore } from '../../lib/store/upstash.js';
import { readUsage } from '../../lib/usage/read.js';

const TICK_MS = 200;
/** 30 seconds at the default 4.5-second tick. */
const THIRTY_SECONDS = Math.round((30_000 / 4_500) * TICK_MS);

let redis: SharedRedis;
let upstream: Upstream;
let server: CostServer;
let quiet: CostServer;
let session: Record<string, string>;
let quietSession: Record<string, string>;

beforeAll(async () => {
  [redis, upstream] = await Promise.all([startSharedRedis(), startUpstream()]);
  server = await startCostServer(redis, upstream.url, { STORE_WATCH_MS: String(TICK_MS) });
  // A tick longer than any test: whatever wakes a call here is a write through this instance.
  quiet = await startCostServer(redis, upstream.url, { STORE_WATCH_MS: '600000' });
  [session, quietSession] = await Promise.all([scenarios.openSession(server.url), scenarios.openSession(quiet.url)]);
  // Redis caches the scripts at their first EVAL; from then on each is one EVALSHA, as on a warm deployment.
  await scenarios.continuedLegacy(server.url, session, await scenarios.newChatModern(server.url));
}, 30_000);
afterAll(async () => {
  await Promise.all([server?.close(), quiet?.close()]);
  upstream?.stop();
  await redis?.stop();
});

describe('a chat call costs two round trips', () => {
  // On the instance whose watch never ticks during a test: what a call costs here is its own commands, however long
  // a loaded machine makes it take (at a 200 ms tick, a call slower than a tick would read once more).
  test('a new chat on the modern wire: one round trip, one command, and the usage counters\' one after the reply', async () => {
    const { cost } = await measure(redis, () => scenarios.newChatModern(quiet.url));
    expect(cost.serial).toBeLessThanOrEqual(3);
    expect(cost.commands).toBeLessThanOrEqual(7);
    expect(cost.byCommand).toEqual({ EVALSHA: 2 });
  });

  test('a new chat on the 2025-11-25 wire with progress: enter and leave, and no event log while the stream is open', async () => {
    const { cost, value } = await measure(redis, () => scenarios.newChatLegacy(quiet.url, quietSession));
    expect(value.structuredContent.reply).toContain('Echo: hello');
    expect(cost.serial).toBeLessThanOrEqual(3);
    expect(cost.commands).toBeLessThanOrEqual(7);
    expect(cost.byCommand).toEqual({ EVALSHA: 3 });
  });

  test('a continued turn: one enter (ticket, history, retry claim) and one leave', async () => {
    const sessionId = await scenarios.newChatModern(quiet.url);
    const { cost, value } = await measure(redis, () => scenarios.continuedLegacy(quiet.url, quietSession, sessionId));
    expect(value.structuredContent.reply).toContain('(history 2)');
    expect(cost.serial).toBeLessThanOrEqual(3);
    expect(cost.commands).toBeLessThanOrEqual(11);
    expect(cost.byCommand).toEqual({ EVALSHA: 3 });
  });

  test('a conversation leaves its history and no counters after its turns', async () => {
    const sessionId = await scenarios.newChatModern(quiet.url);
    await scenarios.continuedModern(quiet.url, sessionId);
    const [keys] = await redis.direct.send([['KEYS', '*queue*']]);
    expect(keys).toEqual([]);
    const [written] = await redis.direct.send([['KEYS', '*~written:*']]);
    expect(written).toEqual([]);
  });
});

describe('the usage counters', () => {
  test('add one command per request, after its reply: the same call on a server that does not count costs one EVALSHA less', async () => {
    const uncounted = await startCostServer(redis, upstream.url, { USAGE_COUNTERS: 'off' });
    try {
      await scenarios.newChatModern(uncounted.url);
      const { cost: without } = await measure(redis, () => scenarios.newChatModern(uncounted.url));
      const { cost: counted } = await measure(redis, () => scenarios.newChatModern(server.url));
      expect(without.byCommand).toEqual({ EVALSHA: 1 });
      expect(counted.byCommand).toEqual({ EVALSHA: 2 });
      expect(counted.roundTrips).toBe(without.roundTrips + 1);
    } finally {
      await uncounted.close();
    }
  });

  test('refused requests cost no command each: they are written with the next counted call, in its one EVALSHA', async () => {
    const key = mintTestKey();
    const keyed = await startCostServer(redis, upstream.url, { MCP_API_KEYS: keyLine('ci', key) });
    try {
      await scenarios.newChatModern(keyed.url, bearer(key));
      const before = await readUsage(new UpstashStore(redis.config), 'hour');
      const { cost: refused, value: statuses } = await measure(redis, () => Promise.all(Array.from({ length: 10 }, () => scenarios.newChatModernStatus(keyed.url))));
      expect(statuses).toEqual(Array(10).fill(401));
      expect(refused.commands).toBe(0);
      const { cost: counted } = await measure(redis, () => scenarios.newChatModern(keyed.url, bearer(key)));
      expect(counted.byCommand).toEqual({ EVALSHA: 2 });
      const after = await readUsage(new UpstashStore(redis.config), 'hour');
      expect(after.refusals['sign-in']).toBe((before.refusals['sign-in'] ?? 0) + 10);
      expect(after.totals.calls).toBe(before.totals.calls + 1);
    } finally {
      await keyed.close();
    }
  });

  test('a page view reads its window in one command', async () => {
    const store = new UpstashStore(redis.config);
    // Redis caches the script at its first EVAL, as on a warm deployment.
    await readUsage(store, 'hour');
    for (const window of ['hour', 'day', 'month'] as const) {
      const { cost, value } = await measure(redis, () => readUsage(store, window));
      expect(value.totals.calls).toBeGreaterThan(0);
      expect(cost.byCommand).toEqual({ EVALSHA: 1 });
      expect(cost.roundTrips).toBe(1);
    }
  });
});

/**
 * `run`'s value and the watch ticks that fit in the time it really took. A call whose upstream waits 30 seconds' worth
 * of ticks runs longer on a loaded machine, and reads at each tick it waits: the bounds below count in those ticks, at
 * most THIRTY_SECONDS_TICKS on an idle machine, never in a pace the machine may not keep.
 */
async function ticked<T>(run: () => Promise<T>): Promise<{ value: T; ticks: number }> {
  const start = performance.now();
  const value = await run();
  return { value, ticks: Math.ceil((performance.now() - start) / TICK_MS) };
}
/** The ticks of a 30-second call, on an idle machine. */
const THIRTY_SECONDS_TICKS = Math.ceil(THIRTY_SECONDS / TICK_MS);
/** What `bound` (written for a 30-second call's ticks) becomes for a run that waited `ticks`. */
const atPace = (bound: number, ticks: number) => bound + Math.max(0, ticks - THIRTY_SECONDS_TICKS);

describe('waiting costs one batched read per instance per tick', () => {
  test('a legacy call as long as 30 seconds at the default tick costs at most 10 commands: one read a tick', async () => {
    const { cost, value: { ticks } } = await measure(redis, () => ticked(() => scenarios.longLegacy(server.url, session, THIRTY_SECONDS)));
    expect(cost.commands).toBeLessThanOrEqual(atPace(10, ticks));
    expect(Object.keys(cost.byCommand).sort()).toEqual(['EVALSHA', 'MGET']);
  });

  test('a running call reads nothing before the tick: enter, leave and the usage counters are its only store requests', async () => {
    const { cost } = await measure(redis, () => scenarios.longLegacy(quiet.url, quietSession, 1_000));
    expect(cost.byCommand).toEqual({ EVALSHA: 3 });
  });

  test('five calls running at once on one instance share each tick\'s read', async () => {
    const { cost, value: { ticks } } = await measure(redis, () => ticked(() => Promise.all(Array.from({ length: 5 }, () => scenarios.longLegacy(server.url, session, THIRTY_SECONDS)))));
    // Alone, each would read at every tick (≤ 7 each); together they read once per tick.
    expect(cost.byCommand.MGET ?? 0).toBeLessThanOrEqual(atPace(8, ticks));
    expect(cost.byCommand.EVALSHA).toBe(15);
  });

  test('a retry of a running call waits for its result through the same ticks', async () => {
    const { cost, value: { value, ticks } } = await measure(redis, () => ticked(() => scenarios.retryJoined(server.url, session, THIRTY_SECONDS)));
    expect(value[1]).toEqual(value[0]);
    expect(cost.commands).toBeLessThanOrEqual(atPace(14, ticks));
    expect(await upstream.requestsFor(value[0].structuredContent.reply.replace(/^Echo: (.*) \(history 0\)$/, '$1'))).toHaveLength(1);
  });

  test('a turn queued behind an earlier one is woken by the earlier turn\'s release on this instance', async () => {
    const sessionId = await scenarios.newChatModern(server.url);
    const { cost, value: { value, ticks } } = await measure(redis, () => ticked(() => scenarios.queuedTurns(server.url, session, sessionId, THIRTY_SECONDS)));
    expect(value[1].structuredContent.reply).toContain('(history 4)');
    // Two turns one after the other: the second waits through the first's ticks, then its own.
    expect(cost.commands).toBeLessThanOrEqual(atPace(18, ticks));
  });

  test('a cancellation POSTed to the same instance wakes the call at once, without waiting for a tick', async () => {
    const id = crypto.randomUUID();
    const message = `fault:hang ${id}`;
    const response = await post(quiet.url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message }, _meta: { progressToken: 'p' } } }, quietSession);
    await upstream.waitFor((log) => log.some((e) => e.kind === 'request' && e.body?.messages?.at(-1)?.content === message));
    const from = redis.bridge.requests.length;
    await post(quiet.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } }, quietSession);
    // The tick is ten minutes: the upstream request closes only because this instance's write woke the call.
    await upstream.waitFor((log) => log.some((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message));
    expect(redis.bridge.requests.slice(from).flatMap((r) => r.commands)).toContain('MGET');
    await response.body?.cancel();
  });
});

describe('a client-chosen id never makes the store traffic large (issue 26 item 3)', () => {
  test('a legacy call with a 3 MB JSON-RPC id sends the store about what one with a short id sends, not megabytes a tick', async () => {
    // Without a progress token, whose text would make the body twice the id's size.
    const call = async (id: string) => (await post(server.url, {
      jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message: `fault:wait ${THIRTY_SECONDS} ${crypto.randomUUID()}` } },
    }, session)).json();
    const { cost: short } = await measure(redis, () => call(crypto.randomUUID()));
    const { cost: huge, value } = await measure(redis, () => call('i'.repeat(3_000_000)));
    expect(value.result.structuredContent.reply).toContain('Echo: fault:wait');
    expect(huge.byCommand.MGET).toBeGreaterThanOrEqual(1);
    expect(huge.bytesSent).toBeLessThan(2 * short.bytesSent);
    expect(huge.bytesSent).toBeLessThan(64 * 1024);
  });
});

describe('the 2025-11-25 event log', () => {
  test('a stream the client dropped is logged from the drop on, at most two commands per event, and resumes to the end', async () => {
    const { cost, value } = await measure(redis, () => scenarios.resumedStream(server.url, session, THIRTY_SECONDS));
    expect(value.status).toBe(200);
    expect(value.last).toMatchObject({ result: { structuredContent: { reply: expect.stringContaining('Echo: fault:wait') } } });
    const logWrites = (cost.byCommand.RPUSH ?? 0) + (cost.byCommand.PEXPIRE ?? 0);
    // Logged: the priming event, "Asking…" (both read before the drop), what the resumed stream delivered, the end marker.
    expect(logWrites).toBeLessThanOrEqual(2 * (2 + value.events + 1));
    expect(cost.byCommand.RPUSH).toBeGreaterThanOrEqual(1);
  });
});

describe('rate limits', () => {
  test('a rate-limit check is one EVALSHA', async () => {
    const limited = await startCostServer(redis, upstream.url, { RATE_LIMIT_IP: '1000/1m' });
    try {
      await scenarios.newChatModern(limited.url);
      const { cost } = await measure(redis, () => scenarios.newChatModern(limited.url));
      expect(cost.byCommand).toEqual({ EVALSHA: 3 });
    } finally {
      await limited.close();
    }
  });
});
