/**
 * `npm run bench`: builds agent-mcp and the peer projects (bench/targets.mjs), then measures cold start, warm
 * throughput, proxy overhead and memory, and writes bench/results/latest.json and latest.md. Numbers are
 * printed, never asserted; on a shared machine they move with whatever else runs, which the load average
 * recorded with them hints at.
 *
 * Knobs: BENCH_RUNS (cold starts per target, 15), BENCH_ROUNDS and BENCH_SECONDS (throughput, 3 × 3 s),
 * BENCH_PROXY_CALLS (2000), BENCH_MEMORY_REQUESTS (100000); the memory bounds under hostile load (bench/bounds.mjs,
 * also runnable alone) take BENCH_HUGE_CALLS (3), BENCH_CHAT_CALLS (10000), BENCH_CHAT_CONCURRENCY (8); what calls cost
 * the shared store (bench/store-cost.mjs, also runnable alone) takes BENCH_STORE_SCALE (20) and BENCH_STORE_SKIP_LONG;
 * streamed calls in flight (bench/streaming.mjs, also runnable alone, with the search for the most calls one instance
 * holds) take BENCH_STREAM_CALLS (200), BENCH_STREAM_RATE (50 chunks/s), BENCH_STREAM_SECONDS (10), BENCH_STREAM_ROUNDS (3).
 *
 * BENCH_NODE=24 measures on Node 24, the Node of the functions' runtime (nodejs24.x), where this machine runs
 * another: the pinned Node 24 (scripts/npm-cache.mjs, installed into .cache/ once) runs this script, so every
 * server and cold start is that Node's, and the results go to bench/results/node24.{json,md}.
 */

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureColdStarts } from './cold-start.mjs';
import { measureChatFlood, measureHugeReply } from './bounds.mjs';
import { measureProxyOverhead } from './proxy.mjs';
import { renderReport } from './report.mjs';
import { measureStoreCost } from './store-cost.mjs';
import { measureStreaming } from './streaming.mjs';
import { ensureNode } from '../scripts/npm-cache.mjs';
import { buildTargets, ROOT, TARGETS } from './targets.mjs';
import { CONNECTIONS, measureMemory, measureThroughput } from './throughput.mjs';

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const major = process.versions.node.split('.')[0];
const wanted = process.env.BENCH_NODE;
if (wanted && wanted !== major) {
  const node = ensureNode(Number(wanted));
  if (!node) throw new Error(`BENCH_NODE=${wanted}: no pinned Node ${wanted} (scripts/npm-cache.mjs pins 22 and 24)`);
  process.exit(spawnSync(node, [fileURLToPath(import.meta.url)], { stdio: 'inherit' }).status ?? 1);
}
const RESULTS = wanted ? `node${wanted}` : 'latest';
const RUNS = env('BENCH_RUNS', 15);
const ROUNDS = env('BENCH_ROUNDS', 3);
const SECONDS = env('BENCH_SECONDS', 3);
const PROXY_CALLS = env('BENCH_PROXY_CALLS', 2000);
const MEMORY_REQUESTS = env('BENCH_MEMORY_REQUESTS', 100_000);

await buildTargets();
const results = { date: new Date().toISOString(), node: process.version, cpus: cpus().length, loadAverage: loadavg() };
console.log('bench: cold start');
results.coldStart = measureColdStarts(TARGETS, RUNS);
console.log('bench: warm throughput');
const { ours, mcpHandler, sdkServer } = TARGETS;
Object.assign(results, { throughputConnections: CONNECTIONS, throughputRounds: ROUNDS, throughputSeconds: SECONDS });
// agent-mcp once more without its request log: one stdout write per request, which the table shows apart.
const oursQuiet = { ...ours, label: 'agent-mcp, MCP_LOG=off', env: { MCP_LOG: 'off' } };
results.throughput = await measureThroughput({ ours, oursQuiet, mcpHandler, sdkServer }, { rounds: ROUNDS, seconds: SECONDS });
console.log('bench: proxy overhead');
results.proxy = await measureProxyOverhead(ours.path(), PROXY_CALLS);
console.log('bench: streamed calls in flight');
results.streaming = await measureStreaming({
  calls: env('BENCH_STREAM_CALLS', 200), rate: env('BENCH_STREAM_RATE', 50), seconds: env('BENCH_STREAM_SECONDS', 10), rounds: env('BENCH_STREAM_ROUNDS', 3),
});
console.log('bench: memory');
results.memory = await measureMemory(ours, MEMORY_REQUESTS);
console.log('bench: memory under a 200 MB upstream reply');
results.hugeReply = await measureHugeReply();
console.log('bench: memory across anonymous 99 KB chat calls');
results.chatFlood = await measureChatFlood();
console.log('bench: what calls cost the shared store (Upstash REST bridge on redis-server)');
results.storeCost = await measureStoreCost();

const dir = join(ROOT, 'bench/results');
mkdirSync(dir, { recursive: true });
const report = renderReport(results);
writeFileSync(join(dir, `${RESULTS}.json`), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(join(dir, `${RESULTS}.md`), report);
console.log(`\n${report}`);
