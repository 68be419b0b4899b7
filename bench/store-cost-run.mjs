/**
 * The store-cost scenarios (bench/store-cost.mjs runs this with `node --import tsx`): agent-mcp as deployed
 * (createDefaultApp) on a real redis-server behind the Upstash REST bridge, a local upstream agent, and the
 * bridge's request log as the counting proxy. Prints one JSON line of results.
 *
 * Time is scaled: with BENCH_STORE_SCALE=s the watch tick is 4500/s ms and a "30-second" call takes 30/s s, so
 * every count is what the deployed default would cost; s=1 runs in real time. BENCH_STORE_SKIP_LONG=1 leaves
 * out the 10-minute call.
 */

import { measure, scenarios, startCostServer } from '../test/support/store-cost.ts';
import { startSharedRedis } from '../test/support/shared-redis.ts';
import { startUpstream } from '../test/support/upstream.ts';
import { post } from '../test/support/rpc.ts';

const SCALE = Number(process.env.BENCH_STORE_SCALE ?? 20);
const DEFAULT_TICK_MS = 4500;
const tick = Math.round(DEFAULT_TICK_MS / SCALE);
const seconds = (s) => Math.round((s * 1000) / SCALE);

const redis = await startSharedRedis();
const upstream = await startUpstream();
const server = await startCostServer(redis, upstream.url, { STORE_WATCH_MS: String(tick) });
const rows = [];

/** Redis-side calls per command since the last reading (INFO commandstats: includes those run inside scripts). */
async function redisCalls() {
  const [info] = await redis.direct.send([['INFO', 'commandstats']]);
  let total = 0;
  for (const match of String(info).matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) if (match[1] !== 'info') total += Number(match[2]);
  return total;
}

async function row(name, target, run, { per = 1, settleMs = 100 } = {}) {
  const before = await redisCalls();
  const { cost, value } = await measure(redis, run, settleMs);
  const executed = (await redisCalls()) - before;
  const path = cost.roundTrips - (cost.byCommand.MGET ?? 0);
  rows.push({ name, target, per, ...cost, watchReads: cost.byCommand.MGET ?? 0, pathRoundTrips: path, executed });
  console.error(`bench: ${name}: ${cost.serial} serial round trips, ${cost.commands} commands ${JSON.stringify(cost.byCommand)}`);
  return value;
}

const session = await scenarios.openSession(server.url);
// Warm: Redis caches the scripts at their first EVAL, as it has on a deployment that has served a call.
await scenarios.continuedLegacy(server.url, session, await scenarios.newChatModern(server.url));

await row('new chat, modern', { serial: 3, commands: 7 }, () => scenarios.newChatModern(server.url));
await row('new chat, legacy 2025-11-25 with progress', { serial: 3, commands: 7 }, () => scenarios.newChatLegacy(server.url, session));
const sessionId = await scenarios.newChatModern(server.url);
await row('continued turn (session_id), modern', { serial: 3, commands: 11 }, () => scenarios.continuedModern(server.url, sessionId));
await row('continued turn (session_id), legacy with progress', { serial: 3, commands: 11 }, () => scenarios.continuedLegacy(server.url, session, sessionId));
await row('legacy call, upstream takes 30 s', { commands: 11 }, () => scenarios.longLegacy(server.url, session, seconds(30)));
if (process.env.BENCH_STORE_SKIP_LONG !== '1') {
  await row('legacy call, upstream takes 10 min', { commands: 151 }, () => scenarios.longLegacy(server.url, session, seconds(600)));
}
await row('10 legacy calls of 30 s at once, one instance (per call)', { commands: 11 }, () =>
  Promise.all(Array.from({ length: 10 }, () => scenarios.longLegacy(server.url, session, seconds(30)))), { per: 10 });
await row('identical call (retry) joined while the first runs 30 s, both calls', {}, () => scenarios.retryJoined(server.url, session, seconds(30)));
const queued = await scenarios.newChatModern(server.url);
await row('turn queued behind a 30 s turn, both turns', {}, () => scenarios.queuedTurns(server.url, session, queued, seconds(30)));
const resumed = await row('stream dropped after its first event and resumed, 30 s call', { perEvent: 2 }, () => scenarios.resumedStream(server.url, session, seconds(30)));
rows.at(-1).events = 2 + resumed.events + 1;

// Rate limits: one EVALSHA per check.
const limited = await startCostServer(redis, upstream.url, { STORE_WATCH_MS: String(tick), RATE_LIMIT_IP: '100000/1m' });
await scenarios.newChatModern(limited.url);
await row('tools/list, rate limits on', { commands: 1 }, () => post(limited.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }).then((r) => r.text()));
await row('new chat, modern, rate limits on', { serial: 4, commands: 8 }, () => scenarios.newChatModern(limited.url));
await limited.close();

// What a conversation leaves: two turns by an anonymous modern client, then every key of the deployment.
await redis.bridge.reset();
const left = await scenarios.newChatModern(server.url);
await scenarios.continuedModern(server.url, left);
const [keys] = await redis.direct.send([['KEYS', '*']]);
const sizes = await redis.direct.send(keys.map((k) => ['MEMORY', 'USAGE', k]));
const leftover = { keys: keys.map((k) => k.replace(/:\[.*$/, ':[…]')), bytes: sizes.reduce((n, s) => n + Number(s), 0) };

// A cancellation POSTed to another instance, at the deployed default tick (real time, whatever the scale).
const [a, b] = await Promise.all([startCostServer(redis, upstream.url), startCostServer(redis, upstream.url)]);
const cancelSession = await scenarios.openSession(a.url);
const id = crypto.randomUUID();
const message = `fault:hang ${id}`;
const response = await post(a.url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message }, _meta: { progressToken: 'p' } } }, cancelSession);
const lastUser = (e) => e.body?.messages?.at(-1)?.content;
await upstream.waitFor((log) => log.some((e) => e.kind === 'request' && lastUser(e) === message));
const cancelledAt = Date.now();
await post(b.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } }, cancelSession);
let closed;
for (let i = 0; i < 300 && !closed; i++) {
  closed = (await upstream.log()).find((e) => e.kind === 'closed' && lastUser(e) === message);
  if (!closed) await new Promise((r) => setTimeout(r, 50));
}
const cancelMs = closed ? closed.at - cancelledAt : null;
// A cancelled call's stream closes without a reply once the call has released its claim.
await response.text();
await Promise.all([a.close(), b.close()]);

await server.close();
upstream.stop();
await redis.stop();
console.log(JSON.stringify({ scale: SCALE, tickMs: tick, defaultTickMs: DEFAULT_TICK_MS, rows, leftover, cancelMs }));
