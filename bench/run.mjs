/**
 * `npm run bench` (after `npm run build`): measures the built artifact and writes bench/results/*.json plus
 * a markdown table. Numbers are printed, never asserted.
 *
 * - cold start: a fresh Node process imports .vercel/output/functions/api/mcp.func and answers its first
 *   tools/list (median and spread of RUNS processes);
 * - warm throughput: tools/list over loopback HTTP against our local server and against a raw node:http
 *   server returning a fixed JSON body (the floor), each in its own process, CONCURRENCY fetch clients in
 *   this process for DURATION_MS. With 2 cores the client shares the machine, so ratios matter, not totals;
 * - proxy overhead: chat_with_agent through the built artifact over calling a fast local upstream directly
 *   (bench/proxy.mjs).
 */

import { spawnSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { builtFunctionPath } from '../scripts/load-built.mjs';
import { measureProxyOverhead } from './proxy.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };
const round = (x) => Math.round(x * 10) / 10;

function coldStart() {
  const path = builtFunctionPath('api/mcp');
  const samples = [];
  for (let i = 0; i < RUNS; i++) {
    const run = spawnSync(process.execPath, [`${ROOT}bench/cold-start-child.mjs`, path], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    samples.push(JSON.parse(run.stdout));
  }
  const total = samples.map((s) => s.totalMs);
  return {
    runs: RUNS,
    medianMs: round(median(total)),
    minMs: round(Math.min(...total)),
    maxMs: round(Math.max(...total)),
    medianImportMs: round(median(samples.map((s) => s.importMs))),
    medianFirstRequestMs: round(median(samples.map((s) => s.firstMs))),
  };
}

const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

async function load(url) {
  const latencies = [];
  const deadline = performance.now() + DURATION_MS;
  async function worker() {
    while (performance.now() < deadline) {
      const t = performance.now();
      const response = await fetch(url, { method: 'POST', headers: HEADERS, body: BODY });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      latencies.push(performance.now() - t);
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { requestsPerSecond: Math.round(latencies.length / (DURATION_MS / 1000)), p50Ms: round(pct(latencies, 0.5)), p99Ms: round(pct(latencies, 0.99)) };
}

/** The floor: a raw node:http server returning a fixed JSON body, in its own process like ours. */
const FLOOR_SERVER = `
  const fixed = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
  const server = require('node:http').createServer((req, res) => {
    req.resume();
    req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(fixed); });
  });
  server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
`;

async function measureServer(args) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      const match = /listening on (http:\/\/\S+)/.exec(String(chunk));
      if (match) resolve(`${match[1]}/mcp`);
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  try {
    await load(url); // warm-up
    return await load(url);
  } finally {
    child.kill();
  }
}

const floor = () => measureServer(['-e', FLOOR_SERVER]);
const ours = () => measureServer(['--import', 'tsx', 'scripts/serve.ts']);

const results = {
  date: new Date().toISOString(), node: process.version,
  coldStart: coldStart(), floor: await floor(), agentMcp: await ours(), proxy: await measureProxyOverhead(),
};
results.agentMcp.ratioToFloor = round(results.agentMcp.requestsPerSecond / results.floor.requestsPerSecond * 100) / 100;

const table = `| measure | value |
|---|---|
| cold start, built api/mcp, median of ${results.coldStart.runs} (min–max) | ${results.coldStart.medianMs} ms (${results.coldStart.minMs}–${results.coldStart.maxMs}) |
| of which import / first tools/list | ${results.coldStart.medianImportMs} ms / ${results.coldStart.medianFirstRequestMs} ms |
| warm tools/list, raw node:http floor | ${results.floor.requestsPerSecond} req/s, p50 ${results.floor.p50Ms} ms, p99 ${results.floor.p99Ms} ms |
| warm tools/list, agent-mcp (npm start) | ${results.agentMcp.requestsPerSecond} req/s, p50 ${results.agentMcp.p50Ms} ms, p99 ${results.agentMcp.p99Ms} ms (${results.agentMcp.ratioToFloor}× floor) |
| chat_with_agent proxy overhead over a direct upstream call, ${results.proxy.calls} calls | p50 ${results.proxy.overheadP50Ms} ms, p99 ${results.proxy.overheadP99Ms} ms (direct p50 ${results.proxy.directP50Ms} ms, through agent-mcp ${results.proxy.proxiedP50Ms} ms) |
`;
mkdirSync(`${ROOT}bench/results`, { recursive: true });
writeFileSync(`${ROOT}bench/results/latest.json`, `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(`${ROOT}bench/results/latest.md`, table);
console.log(table);
