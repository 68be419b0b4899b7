/**
 * Streaming calls in flight (issue 48): N concurrent `chat_with_agent` calls on the 2025-11-25 wire, each with a
 * progress token, against an OpenAI-compatible upstream that streams STREAM_RATE chunks a second for STREAM_SECONDS
 * (bench/stream-upstream.mjs), for three servers: agent-mcp (the built api/mcp behind srvx, as the other rows serve
 * it), mcp-handler 2.4.0 serving the same tool streamed from the same upstream (bench/peers/api/mcp-handler-stream.ts,
 * built as the other peers are) and the raw relay floor (bench/stream-relay.mjs: node:http, one progress event per
 * upstream chunk). Servers take turns within a round; each figure is the median over rounds.
 *
 * Per server, in a window that opens once every call has started streaming and closes before the first can end:
 * - CPU per upstream chunk: the server process's CPU time (/proc, every thread) over the chunks the upstream wrote;
 * - heap and RSS per in-flight call: heap use after a full GC while N calls stream, minus the same just before the
 *   calls began, over N; RSS over the server's RSS when it had started and served nothing;
 * - event-loop delay p50 / p99 / max inside the server (bench/side-channel.mjs), over the window;
 * - calls completed: those whose stream ended with a result that is not an error.
 * agent-mcp sends at most one progress notification per 100 ms of text (lib/agent/progress.ts FLUSH_MS), the relay
 * and the peer one per chunk: the notes column counts what each sent per call.
 *
 * Standalone: `node bench/streaming.mjs [--calls N] [--rate R] [--seconds S] [--rounds K] [--search]` (the built
 * functions of `npm run bench`, .vercel/bench, are used when present; `--build` builds them first). `--search`
 * finds, per server, the largest N whose event-loop delay p99 stays under 100 ms with every call streaming in the
 * window and completed (a slow doubling then bisection, one run per probe). `npm run bench` runs the short row (BENCH_STREAM_CALLS,
 * BENCH_STREAM_RATE, BENCH_STREAM_SECONDS, BENCH_STREAM_ROUNDS).
 *
 * `--heap` measures heap per in-flight call as issue 48 states it (measureHeap; defaults there: 1,000 calls, 1 chunk/s,
 * 30 s streams, taken 10 s in, `--at`): counts, not times, so it compares builds on a loaded machine. `--snapshot` adds
 * the per-call breakdown by kind of object from two heap snapshots (bench/heap-snapshot.mjs), `--where` names where
 * each closure is written. Writing a snapshot of a thousand calls stops the server for seconds, so in a snapshot run
 * calls may pass their reply deadline afterwards: read `completed` from a run without it.
 */

import { existsSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { perCall, tallySnapshot } from './heap-snapshot.mjs';
import { startServer } from './process.mjs';
import { median, round } from './stats.mjs';
import { buildTargets, peerFunctionPath, ROOT, TARGETS } from './targets.mjs';

export const DELAY_BOUND_MS = 100;
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
/** Calls start spread over this long (at most a third of the stream), as callers arrive, not in one burst. */
const RAMP_MS = 2_000;

export const STREAM_SERVERS = {
  relay: { label: 'raw node:http relay (floor)', args: () => ['bench/stream-relay.mjs'] },
  ours: { label: 'agent-mcp (npm run build)', args: () => ['bench/serve-built.mjs', TARGETS.ours.path()] },
  mcpHandler: { label: 'mcp-handler 2.4.0, same tool streamed', args: () => ['bench/serve-built.mjs', peerFunctionPath('mcp-handler-stream')] },
};

/** One call: resolves { ok, notes } once its stream ends. */
export function call(agent, url, i) {
  const body = JSON.stringify({
    jsonrpc: '2.0', id: i, method: 'tools/call',
    params: { name: 'chat_with_agent', arguments: { message: `stream ${i} ${Math.random()}` }, _meta: { progressToken: i } },
  });
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent, headers: { ...HEADERS, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.setEncoding('utf8');
      let notes = 0;
      // The text from the latest event on: the last one is the call's reply (each server orders its members its own way).
      let last = '';
      res.on('data', (text) => {
        for (let at = text.indexOf('notifications/progress'); at !== -1; at = text.indexOf('notifications/progress', at + 1)) notes++;
        const start = text.lastIndexOf('data: {');
        last = start === -1 ? last + text : text.slice(start);
      });
      res.on('end', () => {
        const ok = res.statusCode === 200 && last.includes('"result":{') && !last.includes('"isError":true');
        resolve({ ok, notes, ...(ok ? {} : { failure: `${res.statusCode} ${last.slice(-300)}` }) });
      });
      res.on('error', () => resolve({ ok: false, notes }));
    });
    req.on('error', () => resolve({ ok: false, notes: 0 }));
    req.end(body);
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One run of `calls` concurrent streamed calls against `server`; `upstream` is the one they all read. */
async function runOnce(server, upstream, { calls, seconds }, idleRss) {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const url = `${server.url}/mcp`;
  const idle = await server.memory();
  const ramp = Math.min(RAMP_MS, (seconds * 1000) / 3);
  const started = performance.now();
  const results = [];
  for (let i = 0; i < calls; i++) {
    results.push(call(agent, url, i));
    if (i % 50 === 49) await sleep((ramp * 50) / calls);
  }
  // The window opens once every call streams (on a loaded machine some start late), and closes a second before the
  // first can end.
  for (let waited = 0; (await upstream.ask('count')).open < calls && waited < 3_000; waited += 100) await sleep(100);
  await sleep(500);
  const windowMs = Math.max(1_000, seconds * 1000 - 1_000 - (performance.now() - started));
  await server.ask('eld-reset');
  const cpu0 = server.cpuMs();
  const count0 = await upstream.ask('count');
  await sleep(windowMs);
  const cpu1 = server.cpuMs();
  const count1 = await upstream.ask('count');
  const delay = await server.ask('eld');
  const busy = await server.memory();
  const done = await Promise.all(results);
  agent.destroy();
  const chunks = count1.chunks - count0.chunks;
  return {
    cpuUsPerChunk: chunks ? ((cpu1 - cpu0) * 1000) / chunks : undefined,
    cpuShare: (cpu1 - cpu0) / windowMs,
    streamsInWindow: count0.open,
    heapKbPerCall: (busy.heapUsed - idle.heapUsed) / 1024 / calls,
    rssKbPerCall: (busy.rss - idleRss) / 1024 / calls,
    delayP50Ms: delay.p50Ms,
    delayP99Ms: delay.p99Ms,
    delayMaxMs: delay.maxMs,
    completed: done.filter((x) => x.ok).length,
    notesPerCall: done.reduce((sum, x) => sum + x.notes, 0) / calls,
  };
}

const AGENT_ENV = (upstreamUrl, calls) => ({
  AGENT_URL: `${upstreamUrl}/v1`, AGENT_MODEL: 'bench', AGENT_FORMAT: 'openai',
  // Every call comes from this one address: the bench is one caller holding N calls at once.
  MCP_MAX_CONCURRENT_CALLS: String(Math.max(16, calls)),
  // The bench measures N calls in flight, however many the machine's default would let one instance hold.
  MCP_MAX_CALLS_PER_INSTANCE: String(calls),
});

async function startAll(keys, { calls, rate, seconds }) {
  const upstream = await startServer(['bench/stream-upstream.mjs'], { STREAM_RATE: String(rate), STREAM_SECONDS: String(seconds) });
  const servers = {};
  for (const key of keys) {
    servers[key] = await startServer(STREAM_SERVERS[key].args(), AGENT_ENV(upstream.url, calls));
    servers[key].idleRss = (await servers[key].memory()).rss;
  }
  return { upstream, servers, stop: () => [upstream, ...Object.values(servers)].forEach((s) => s.stop()) };
}

/** The row: `rounds` interleaved runs per server; medians. */
export async function measureStreaming({ calls = 100, rate = 50, seconds = 10, rounds = 3, keys = Object.keys(STREAM_SERVERS) } = {}) {
  const { upstream, servers, stop } = await startAll(keys, { calls, rate, seconds });
  const runs = Object.fromEntries(keys.map((key) => [key, []]));
  try {
    for (let r = 0; r < rounds; r++) {
      for (const key of keys) {
        runs[key].push(await runOnce(servers[key], upstream, { calls, seconds }, servers[key].idleRss));
        console.log(`bench: streaming round ${r + 1} ${key}: ${JSON.stringify(runs[key].at(-1), (_k, v) => (typeof v === 'number' ? round(v, 2) : v))}`);
      }
    }
  } finally {
    stop();
  }
  const med = (key, field, digits = 1) => round(median(runs[key].map((x) => x[field])), digits);
  const rows = Object.fromEntries(keys.map((key) => [key, {
    label: STREAM_SERVERS[key].label,
    cpuUsPerChunk: med(key, 'cpuUsPerChunk'),
    heapKbPerCall: med(key, 'heapKbPerCall'),
    rssKbPerCall: med(key, 'rssKbPerCall'),
    delayP99Ms: med(key, 'delayP99Ms'),
    delayMaxMs: med(key, 'delayMaxMs'),
    completed: Math.min(...runs[key].map((x) => x.completed)),
    notesPerCall: med(key, 'notesPerCall'),
    // Each run's ratio, then their median: the servers of one round ran under the same load.
    ...(key !== 'relay' && runs.relay ? { ofRelay: round(median(runs[key].map((x, i) => x.cpuUsPerChunk / runs.relay[i].cpuUsPerChunk)), 2) } : {}),
  }]));
  if (rows.ours && runs.mcpHandler) rows.ours.ofMcpHandler = round(median(runs.ours.map((x, i) => x.cpuUsPerChunk / runs.mcpHandler[i].cpuUsPerChunk)), 2);
  return { calls, rate, seconds, rounds, loadAverage: loadavg(), rows };
}

/** The targets of issue 48, judged in this row (Node 24): CPU per chunk over the relay's and mcp-handler's, heap per call. */
export const STREAM_TARGETS = { ofRelay: 1.25, ofMcpHandler: 0.5, heapKbPerCall: 20 };

/** The row's table and its targets, as docs/performance.md shows them. */
export function renderStreaming(r) {
  const rows = Object.values(r.rows);
  const ours = r.rows.ours;
  const lines = [
    `| ${r.calls} calls in flight, ${r.rate} chunks/s for ${r.seconds} s | CPU µs per upstream chunk | × relay | heap per call | RSS per call | event-loop delay p99 (max) | completed | progress events per call |`,
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((x) => `| ${x.label} | ${x.cpuUsPerChunk} | ${x.ofRelay ?? 1}× | ${x.heapKbPerCall} KB | ${x.rssKbPerCall} KB | ${x.delayP99Ms} ms (${x.delayMaxMs}) | ${x.completed}/${r.calls} | ${x.notesPerCall} |`),
  ];
  if (ours?.ofRelay !== undefined && ours.ofMcpHandler !== undefined) {
    const met = (ok) => (ok ? 'met' : 'not met');
    lines.push('', `Targets (issue 48, judged on Node 24): CPU per chunk ≤ ${STREAM_TARGETS.ofRelay}× the relay's: ${ours.ofRelay}×, ${met(ours.ofRelay <= STREAM_TARGETS.ofRelay)}; `
      + `≤ ${STREAM_TARGETS.ofMcpHandler}× mcp-handler's: ${ours.ofMcpHandler}×, ${met(ours.ofMcpHandler <= STREAM_TARGETS.ofMcpHandler)}; `
      + `heap per in-flight call ≤ ${STREAM_TARGETS.heapKbPerCall} KB: ${ours.heapKbPerCall} KB, ${met(ours.heapKbPerCall <= STREAM_TARGETS.heapKbPerCall)}.`);
  }
  return lines.join('\n');
}

/**
 * Heap per in-flight call as issue 48 states it, deterministically: per server, a warm-up batch of `warm` calls runs
 * to its end (every module loaded, every cache filled), then heap use after a full GC (and, with `snapshot`, a heap
 * snapshot) is taken idle and again `at` seconds after all `calls` calls stream; the difference over `calls` is what a
 * call holds at that point of its stream. Counts and sizes, not times: they do not move with machine load.
 */
export async function measureHeap({ calls = 1000, rate = 1, seconds = 30, at = 10, warm = 20, snapshot = false, where = false, keys = Object.keys(STREAM_SERVERS) } = {}) {
  const rows = {};
  for (const key of keys) {
    const { upstream, servers, stop } = await startAll([key], { calls, rate, seconds });
    const server = servers[key];
    const url = `${server.url}/mcp`;
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    try {
      await Promise.all(Array.from({ length: warm }, (_, i) => call(agent, url, -1 - i)));
      const tally = async () => {
        if (!snapshot) return undefined;
        const { path } = await server.ask('heap-snapshot');
        try {
          return tallySnapshot(path, { where });
        } finally {
          rmSync(path, { force: true });
        }
      };
      const idle = await server.memory();
      const idleTally = await tally();
      const results = [];
      for (let i = 0; i < calls; i++) {
        results.push(call(agent, url, i));
        if (i % 50 === 49) await sleep(RAMP_MS / (calls / 50));
      }
      for (let waited = 0; (await upstream.ask('count')).open < calls && waited < 10_000; waited += 100) await sleep(100);
      const streaming = (await upstream.ask('count')).open;
      await sleep(at * 1000);
      const busy = await server.memory();
      const busyTally = await tally();
      const done = await Promise.all(results);
      rows[key] = {
        label: STREAM_SERVERS[key].label,
        streaming,
        heapKbPerCall: round((busy.heapUsed - idle.heapUsed) / 1024 / calls, 1),
        completed: done.filter((x) => x.ok).length,
        ...(idleTally ? { snapshot: perCall(idleTally, busyTally, calls) } : {}),
      };
      console.log(`bench: heap ${key}: ${rows[key].heapKbPerCall} KB per call, ${streaming}/${calls} streaming at the snapshot, ${rows[key].completed} completed`);
      const failed = done.find((x) => !x.ok);
      if (failed) console.log(`bench: heap ${key}: a call that failed: ${failed.failure}`);
    } finally {
      agent.destroy();
      stop();
    }
  }
  return { calls, rate, seconds, at, warm, rows };
}

/** The heap table: conditions in its head, and with snapshots each server's largest groups per call. */
export function renderHeap(r, top = 16) {
  const lines = [
    `| ${r.calls} calls in flight, ${r.rate} chunk/s, ${r.at} s into a ${r.seconds} s stream (after ${r.warm} warm-up calls) | heap per call (GC'd heap use) | objects per call (snapshot) | self size per call (snapshot) |`,
    '|---|---|---|---|',
    ...Object.values(r.rows).map((x) => `| ${x.label} | ${x.heapKbPerCall} KB | ${x.snapshot ? round(x.snapshot.objects, 0) : ''} | ${x.snapshot ? `${round(x.snapshot.bytes / 1024, 1)} KB` : ''} |`),
  ];
  for (const x of Object.values(r.rows)) {
    if (!x.snapshot) continue;
    lines.push('', `${x.label}, per call (largest first):`, '', '| group | objects | bytes |', '|---|---|---|');
    for (const row of x.snapshot.rows.slice(0, top)) lines.push(`| ${row.group} | ${round(row.objects, 1)} | ${round(row.bytes, 0)} |`);
  }
  return lines.join('\n');
}

/** Whether a run held: every call completed and the loop's p99 delay under the bound. */
// Every call streaming at once in the window, not only completed by the end: a server that falls behind finishes its
// calls one after another (mcp-handler "held" 800 with 387 streaming at once).
const holds = (run, calls) => run.completed === calls && run.streamsInWindow === calls && run.delayP99Ms < DELAY_BOUND_MS;

/** The largest N `key` sustains: doubling from `from`, then bisection to within an eighth. */
export async function searchCalls(key, { rate, seconds, from = 100, most = 16_000 }) {
  const probes = [];
  const probe = async (calls) => {
    const { upstream, servers, stop } = await startAll([key], { calls, rate, seconds });
    try {
      const run = await runOnce(servers[key], upstream, { calls, seconds }, servers[key].idleRss);
      probes.push({ calls, ...run });
      console.log(`bench: search ${key} N=${calls}: p99 ${round(run.delayP99Ms)} ms, ${run.completed}/${calls} completed, ${round(run.cpuShare * 100)}% CPU`);
      return holds(run, calls);
    } finally {
      stop();
    }
  };
  let good = 0;
  let bad = most * 2;
  for (let n = from; n <= most; n *= 2) {
    if (await probe(n)) good = n;
    else {
      bad = n;
      break;
    }
  }
  while (good && bad <= most * 2 && bad - good > good / 8) {
    const mid = Math.round((good + bad) / 2);
    if (await probe(mid)) good = mid;
    else bad = mid;
  }
  return { key, label: STREAM_SERVERS[key].label, sustained: good, probes };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      calls: { type: 'string' }, rate: { type: 'string' }, seconds: { type: 'string' },
      rounds: { type: 'string', default: '3' }, search: { type: 'boolean', default: false }, build: { type: 'boolean', default: false },
      // Heap per in-flight call (measureHeap): --at seconds into the stream, --snapshot for the breakdown by kind.
      heap: { type: 'boolean', default: false }, at: { type: 'string', default: '10' }, snapshot: { type: 'boolean', default: false },
      top: { type: 'string', default: '16' }, where: { type: 'boolean', default: false },
      only: { type: 'string' },
      // Another build of api/mcp (its handler module, e.g. one kept from before a change), measured beside the rest.
      base: { type: 'string' },
    },
  });
  if (values.base) STREAM_SERVERS.base = { label: `agent-mcp, ${values.base}`, args: () => ['bench/serve-built.mjs', values.base] };
  const keys = values.only ? values.only.split(',') : Object.keys(STREAM_SERVERS);
  if (values.base && values.only && !keys.includes('base')) keys.push('base');
  // Only agent-mcp's and mcp-handler's rows read the built functions (`--only relay,base` needs no build).
  const built = { ours: existsSync(join(ROOT, '.vercel/bench/bundled')), mcpHandler: existsSync(join(ROOT, 'bench/peers/.vercel/bench/bundled')) };
  if (values.build || keys.some((key) => built[key] === false)) await buildTargets();
  // The heap measure's conditions are the issue's (1,000 calls, 1 chunk/s, 30 s); the row's are 100 calls, 50/s, 20 s.
  const given = (name, row, heap) => Number(values[name] ?? (values.heap ? heap : row));
  const options = { calls: given('calls', 100, 1000), rate: given('rate', 50, 1), seconds: given('seconds', 20, 30), rounds: Number(values.rounds), keys };
  if (values.heap) {
    const result = await measureHeap({ ...options, at: Number(values.at), snapshot: values.snapshot || values.where, where: values.where });
    console.log(JSON.stringify(result));
    console.log(`\nNode ${process.version}.\n\n${renderHeap(result, Number(values.top))}`);
  } else if (values.search) {
    for (const key of keys) console.log(JSON.stringify(await searchCalls(key, options)));
  } else {
    const result = await measureStreaming(options);
    console.log(JSON.stringify(result, null, 2));
    console.log(`\nNode ${process.version}, load average ${result.loadAverage.map((x) => round(x, 2)).join(' / ')} at the end.\n\n${renderStreaming(result)}`);
  }
}
