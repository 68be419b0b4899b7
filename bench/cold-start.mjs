/**
 * Cold start: RUNS fresh Node processes per target, each importing the built function and answering its first
 * tools/list (bench/cold-start-child.mjs). Targets take turns within each round, so drift on a shared machine
 * hits all of them alike. The environment is empty but for PATH: every target serves its defaults.
 */

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, quantile, round } from './stats.mjs';

const CHILD = fileURLToPath(new URL('./cold-start-child.mjs', import.meta.url));

function sample(path, flags = [], first = []) {
  const run = spawnSync(process.execPath, [...flags, CHILD, path, ...first], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  if (run.status !== 0) throw new Error(`cold start of ${path} failed:\n${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)); // after whatever the function logs at start-up
}

/**
 * `targets`: { key: { label, path(), nodeFlags?, first? } } (nodeFlags: what Node is started with; first: the
 * child's first request, `call` for a tools/call, else tools/list); returns per key the median and spread of
 * import + first request.
 */
export function measureColdStarts(targets, runs) {
  const samples = Object.fromEntries(Object.keys(targets).map((key) => [key, []]));
  for (const target of Object.values(targets)) sample(target.path(), target.nodeFlags, target.first); // fill the file cache
  for (let i = 0; i < runs; i++) {
    for (const [key, target] of Object.entries(targets)) samples[key].push(sample(target.path(), target.nodeFlags, target.first));
  }
  return Object.fromEntries(Object.entries(samples).map(([key, runsOf]) => {
    const total = runsOf.map((s) => s.importMs + s.firstMs);
    return [key, {
      label: targets[key].label,
      runs,
      medianMs: round(median(total)),
      p10Ms: round(quantile(total, 0.1)),
      p90Ms: round(quantile(total, 0.9)),
      importMs: round(median(runsOf.map((s) => s.importMs))),
      firstRequestMs: round(median(runsOf.map((s) => s.firstMs))),
      runtimeMs: round(median(runsOf.map((s) => s.runtimeMs))),
    }];
  }));
}
