/**
 * Server CPU per warm tools/call, fresh servers, interleaved (issue 48): `node bench/warm-call.mjs label=path/to/mcp.js
 * ... [--rounds 3] [--warm 5000] [--calls 30000]` serves each built function and the minimal chat handler
 * (bench/minimal-call.mjs) behind the same adapter (bench/serve-built.mjs), each round a fresh server per target in
 * turn, and prints the server's CPU time (all threads, /proc) per call over `calls` tools/call after `warm`, with
 * `MCP_LOG=off`, and each target's ratio to the minimal handler of the same round. The first target answers the
 * bytes the minimal handler repeats. The servers run on the Node that runs this script; the figures of
 * docs/performance.md "Issue 48: the warm call" are Node 24's.
 */

import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startServer } from './process.mjs';
import { median, round } from './stats.mjs';
import { answersOf, load } from './throughput.mjs';

const MINIMAL = fileURLToPath(new URL('./minimal-call.mjs', import.meta.url));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '3' }, warm: { type: 'string', default: '5000' }, calls: { type: 'string', default: '30000' } },
});
const targets = positionals.map((arg) => {
  const [label, path] = arg.split('=');
  return { label, path: resolve(path) };
});
if (!targets.length) throw new Error('usage: node bench/warm-call.mjs label=path/to/mcp.js ...');
const env = { MCP_LOG: 'off' };

/** A fresh server of `handler`: its CPU per tools/call over `calls` after `warm` (µs). */
async function cpuPerCall(handler, serverEnv, path) {
  const server = await startServer(['bench/serve-built.mjs', handler], serverEnv);
  try {
    const url = `${server.url}/${path}`;
    await load(url, 'tools/call', { amount: Number(values.warm) });
    return (await load(url, 'tools/call', { amount: Number(values.calls) }, server)).cpuUsPerRequest;
  } finally {
    server.stop();
  }
}

const probe = await startServer(['bench/serve-built.mjs', targets[0].path], env);
const minimalEnv = { FLOOR_BODIES: JSON.stringify(await answersOf(probe.url)) };
probe.stop();

const runs = Object.fromEntries([['minimal', []], ...targets.map((t) => [t.label, []])]);
const loadAverages = [];
for (let r = 0; r < Number(values.rounds); r++) {
  loadAverages.push(loadavg()[0]);
  const order = [{ label: 'minimal', path: MINIMAL, env: minimalEnv, at: 'tools/call' }, ...targets.map((t) => ({ ...t, env, at: 'mcp' }))];
  // Rotate the order each round so that no target always follows another.
  for (let k = 0; k < order.length; k++) {
    const t = order[(k + r) % order.length];
    runs[t.label].push(await cpuPerCall(t.path, t.env, t.at));
  }
  console.error(`round ${r + 1}:`, Object.entries(runs).map(([label, v]) => `${label} ${round(v.at(-1))}`).join(', '));
}
const ratios = Object.fromEntries(targets.map((t) => [t.label, median(runs[t.label].map((v, r) => v / runs.minimal[r]))]));
console.log(JSON.stringify({
  node: process.version, loadAverage: loadAverages.map((x) => round(x)),
  cpuUsPerCall: Object.fromEntries(Object.entries(runs).map(([label, v]) => [label, { median: round(median(v)), runs: v.map((x) => round(x)) }])),
  ofMinimal: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, round(v, 2)])),
}, null, 1));
