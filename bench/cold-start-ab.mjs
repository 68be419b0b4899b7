/**
 * A/B cold start of built functions on a shared machine: `node bench/cold-start-ab.mjs label=path/to/mcp.js ...`.
 * Every round runs each function once on each wire (2025-11-25 and 2026-07-28), in turn, so drift from other work
 * hits all of them alike; prints per function and wire the median and p10 of import + first tools/list, and the
 * CPU time they took (user + system), which a loaded machine inflates less than wall time.
 * BENCH_RUNS rounds (41). Used to judge each cold-start change against the build it started from.
 */

import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, quantile, round } from './stats.mjs';

const CHILD = fileURLToPath(new URL('./cold-start-child.mjs', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 41);
const WIRES = ['legacy', 'modern'];
const targets = process.argv.slice(2).map((arg) => {
  const [label, path] = arg.split('=');
  return { label, path: resolve(path) };
});

function sample(path, wire) {
  const run = spawnSync(process.execPath, [CHILD, path, wire], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  if (run.status !== 0) throw new Error(`cold start of ${path} (${wire}) failed:\n${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1));
}

const samples = new Map(targets.flatMap((t) => WIRES.map((wire) => [`${t.label} ${wire}`, []])));
for (const t of targets) sample(t.path, 'legacy'); // fill the file cache
for (let i = 0; i < RUNS; i++) {
  for (const wire of WIRES) for (const t of targets) samples.get(`${t.label} ${wire}`).push(sample(t.path, wire));
}
for (const [key, runs] of samples) {
  const total = runs.map((s) => s.importMs + s.firstMs);
  console.log(`${key.padEnd(24)} median ${round(median(total))} ms  p10 ${round(quantile(total, 0.1))}  p90 ${round(quantile(total, 0.9))}`
    + `  import ${round(median(runs.map((s) => s.importMs)))}  first ${round(median(runs.map((s) => s.firstMs)))}`
    + `  cpu ${round(median(runs.map((s) => s.cpuMs)))} (p10 ${round(quantile(runs.map((s) => s.cpuMs), 0.1))})  (${runs.length} runs)`);
}
