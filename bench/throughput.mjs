/**
 * Warm throughput over loopback HTTP with autocannon: tools/list, and tools/call of the one tool with a distinct
 * message per request (so no retry cache answers), against each target served by bench/serve-built.mjs, the
 * floor (bench/floor.mjs: raw node:http answering the same bytes as agent-mcp), the Web-standard floor
 * (bench/web-floor.mjs: those bytes from a `{ fetch }` function behind the same adapter as the targets) and a
 * minimal chat handler (bench/minimal-call.mjs: the least work that answers both workloads as agent-mcp does).
 * Targets take turns in each round; each figure is the median over rounds. The load generator shares the
 * machine with the servers, so compare ratios, not totals.
 */

import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startServer } from './process.mjs';
import { median, round } from './stats.mjs';

export const CONNECTIONS = 16;
const WEB_FLOOR = fileURLToPath(new URL('./web-floor.mjs', import.meta.url));
const MINIMAL = fileURLToPath(new URL('./minimal-call.mjs', import.meta.url));
const FLOORS = {
  floor: 'raw node:http, fixed body (floor)',
  webFloor: 'Web-standard fetch, fixed body, same adapter',
  minimal: 'a minimal chat handler, same adapter (bench/minimal-call.mjs)',
};

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

const list = () => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
const call = (i) => JSON.stringify({
  jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message: `hello ${i}` } },
});

export const WORKLOADS = { 'tools/list': list, 'tools/call': call };

/**
 * One autocannon run; `options` holds duration (s) or amount (requests). With `server`, also the server's CPU time
 * per request (µs): a figure the load generator, which shares the CPUs, moves less than requests per second.
 */
export async function load(url, workload, options, server) {
  let i = 0;
  const body = WORKLOADS[workload];
  const cpuBefore = server?.cpuMs();
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    ...options,
    requests: [{ method: 'POST', headers: HEADERS, body: body(0), setupRequest: (request) => ({ ...request, body: body(i++) }) }],
  });
  const cpuAfter = server?.cpuMs();
  if (result.errors || result.non2xx) throw new Error(`${url} ${workload}: ${result.errors} errors, ${result.non2xx} non-2xx replies`);
  const cpuUsPerRequest = cpuBefore === undefined || cpuAfter === undefined || !result.requests.total
    ? undefined : ((cpuAfter - cpuBefore) * 1000) / result.requests.total;
  return { requestsPerSecond: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99, cpuUsPerRequest };
}

/** The bytes the server at `url` answers for each workload: agent-mcp's are what the floors repeat. */
export async function answersOf(url) {
  const bodies = {};
  for (const [workload, body] of Object.entries(WORKLOADS)) {
    const response = await fetch(`${url}/mcp`, { method: 'POST', headers: HEADERS, body: body(0) });
    bodies[`/${workload}`] = await response.text();
  }
  return bodies;
}

/**
 * The minimal handler must answer as agent-mcp does, or it measures something else: the list byte for byte, the
 * call but for its session id.
 */
function checkMinimal(minimal, ours) {
  if (minimal['/tools/list'] !== ours['/tools/list']) throw new Error('bench/minimal-call.mjs: its tools/list is not agent-mcp\'s');
  const withoutSession = (text) => {
    const { result } = JSON.parse(text);
    return JSON.stringify({ ...result, structuredContent: { ...result.structuredContent, session_id: undefined } });
  };
  if (withoutSession(minimal['/tools/call']) !== withoutSession(ours['/tools/call'])) throw new Error('bench/minimal-call.mjs: its tools/call is not agent-mcp\'s');
}

/**
 * `targets`: { key: { label, path(), env? } }, the first being agent-mcp; returns per workload and key the median
 * requests/s and latency, with each target's ratio to the floor.
 */
export async function measureThroughput(targets, { rounds, seconds }) {
  const servers = {};
  try {
    for (const [key, target] of Object.entries(targets)) servers[key] = await startServer(['bench/serve-built.mjs', target.path()], target.env);
    const ours = await answersOf(Object.values(servers)[0].url);
    const env = { FLOOR_BODIES: JSON.stringify(ours) };
    servers.floor = await startServer(['bench/floor.mjs'], env);
    servers.webFloor = await startServer(['bench/serve-built.mjs', WEB_FLOOR], env);
    servers.minimal = await startServer(['bench/serve-built.mjs', MINIMAL], env);
    checkMinimal(await answersOf(servers.minimal.url), ours);
    const urlOf = (key, workload) => `${servers[key].url}/${key in FLOORS ? workload : 'mcp'}`;
    const keys = [...Object.keys(FLOORS), ...Object.keys(targets)];

    const runs = {};
    for (const workload of Object.keys(WORKLOADS)) {
      runs[workload] = Object.fromEntries(keys.map((key) => [key, []]));
      for (const key of keys) await load(urlOf(key, workload), workload, { duration: 1 }); // warm-up
    }
    for (let r = 0; r < rounds; r++) {
      for (const workload of Object.keys(WORKLOADS)) {
        for (const key of keys) runs[workload][key].push(await load(urlOf(key, workload), workload, { duration: seconds }, servers[key]));
      }
    }

    return Object.fromEntries(Object.entries(runs).map(([workload, byKey]) => {
      const summary = Object.fromEntries(Object.entries(byKey).map(([key, results]) => [key, {
        label: FLOORS[key] ?? targets[key].label,
        requestsPerSecond: Math.round(median(results.map((x) => x.requestsPerSecond))),
        p50Ms: median(results.map((x) => x.p50Ms)),
        p99Ms: median(results.map((x) => x.p99Ms)),
        ...(results.every((x) => x.cpuUsPerRequest !== undefined) ? { cpuUsPerRequest: round(median(results.map((x) => x.cpuUsPerRequest))) } : {}),
      }]));
      for (const entry of Object.values(summary)) entry.ofFloor = round(entry.requestsPerSecond / summary.floor.requestsPerSecond, 2);
      return [workload, summary];
    }));
  } finally {
    for (const server of Object.values(servers)) server.stop();
  }
}

/** Least-squares slope of `values` per step. */
function slope(values) {
  const n = values.length;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((a, b) => a + b, 0) / n;
  const num = values.reduce((sum, y, x) => sum + (x - meanX) * (y - meanY), 0);
  const den = values.reduce((sum, _y, x) => sum + (x - meanX) ** 2, 0);
  return num / den;
}

/**
 * Memory of a fresh server for `target` under tools/list, after a full GC: warmed with 5000 requests, then
 * after each of STRETCHES stretches of `amount` requests. The first stretch takes RSS to its steady state (V8
 * keeps the heap pages a peak needed, and its young generation grows and shrinks by a few MB from one sample to
 * the next); growth is the least-squares slope of the steady samples per `amount` requests, so a leak (growth
 * that goes on) shows and that breathing averages out. (tools/call is left out: each call starts a conversation
 * the memory store keeps for a day, which is growth by design.)
 */
const STRETCHES = 4;

export async function measureMemory(target, amount) {
  const mb = (bytes) => round(bytes / 2 ** 20);
  const server = await startServer(['bench/serve-built.mjs', target.path()]);
  try {
    const url = `${server.url}/mcp`;
    await load(url, 'tools/list', { amount: 5_000 });
    const samples = [await server.memory()];
    for (let i = 0; i < STRETCHES; i++) {
      await load(url, 'tools/list', { amount });
      samples.push(await server.memory());
    }
    const steady = samples.slice(1);
    return {
      requests: amount,
      rssMb: samples.map((m) => mb(m.rss)),
      heapTotalMb: samples.map((m) => mb(m.heapTotal)),
      heapMb: samples.map((m) => mb(m.heapUsed)),
      growthMb: mb(slope(steady.map((m) => m.rss))),
      heapGrowthMb: mb(slope(steady.map((m) => m.heapUsed))),
    };
  } finally {
    server.stop();
  }
}
