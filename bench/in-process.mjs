/**
 * Warm work per request of a built function, in process: `node bench/in-process.mjs <handler.js> [tools/list|tools/call] [N]`
 * imports the function, sends it BENCH_WARM (1000) requests to warm up, then N more, 16 at a time, as the throughput
 * bench's workloads (bench/throughput.mjs), and prints the CPU time per request. No sockets and no load generator:
 * run it under valgrind's callgrind (`--single-threaded`) with N and with 0 and take the difference over N for
 * instructions per request, a count a shared machine does not move (docs/performance.md, issue 22).
 */

import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { WORKLOADS } from './throughput.mjs';

const [path, workload = 'tools/list', count = '10000'] = process.argv.slice(2);
const N = Number(count);
const { default: fn } = await import(pathToFileURL(resolve(path)).href);
const body = WORKLOADS[workload];
if (!body) throw new Error(`unknown workload ${workload}: one of ${Object.keys(WORKLOADS).join(', ')}`);
const HEADERS = { host: 'localhost', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

async function send(i) {
  const text = body(i);
  const response = await fn.fetch(new Request('http://localhost/mcp', {
    method: 'POST', body: text, headers: { ...HEADERS, 'content-length': String(Buffer.byteLength(text)) },
  }));
  const reply = await response.text();
  if (response.status !== 200) throw new Error(`${workload}: ${response.status} ${reply}`);
}

async function run(n, first) {
  for (let k = 0; k < n; k += 16) await Promise.all(Array.from({ length: Math.min(16, n - k) }, (_, j) => send(first + k + j)));
}

await run(Number(process.env.BENCH_WARM ?? 1000), 0);
const before = process.cpuUsage();
await run(N, 1_000_000);
const cpu = process.cpuUsage(before);
console.error(JSON.stringify({ workload, requests: N, cpuMicrosecondsPerRequest: N ? Math.round((cpu.user + cpu.system) / N * 10) / 10 : 0 }));
