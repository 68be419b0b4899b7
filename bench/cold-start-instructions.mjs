/**
 * Instructions of a cold start, a count a shared machine does not move: `node bench/cold-start-instructions.mjs
 * label=path/to/mcp.js ...` runs bench/cold-start-child.mjs (a fresh process imports the function and answers its
 * first request: a tools/list on each wire of BENCH_WIRES, `legacy modern` by default, or with `call` a tools/call of
 * the demo agent) under valgrind's callgrind, with V8 single-threaded and seeded so that the count repeats
 * (BENCH_V8_FLAGS), BENCH_RUNS times (5) per function, and prints the least count of each and its difference to the
 * first one given (run the fixed-reply floor first, `floor=bench/fixed-reply.mjs`, for a function's own instructions).
 *
 * `--single-threaded` is a V8 flag, and V8 refuses a code cache made under other flags: a function in script form
 * (scripts/script-form.mjs) is measured from a copy whose cache this script makes again under that flag, as the
 * build makes it (scripts/code-cache.mjs), so that the count is the cache's and not a compile's. BENCH_NODE picks
 * the Node binary (this one by default).
 */

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WARM_UP } from '../scripts/code-cache.mjs';
import { median } from './stats.mjs';

const CHILD = fileURLToPath(new URL('./cold-start-child.mjs', import.meta.url));
const MAKE = fileURLToPath(new URL('../scripts/code-cache-child.mjs', import.meta.url));
const NODE = process.env.BENCH_NODE ?? process.execPath;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const WIRES = (process.env.BENCH_WIRES ?? 'legacy modern').split(' ');
const FLAGS = (process.env.BENCH_V8_FLAGS ?? '--single-threaded --hash-seed=1 --random-seed=1').split(' ');
const env = { PATH: process.env.PATH };
// BENCH_CHILD_EXIT=reply (cold-start-child.mjs) counts to the first reply; unset, what runs after it too.
const childEnv = { ...env, ...(process.env.BENCH_CHILD_EXIT ? { BENCH_CHILD_EXIT: process.env.BENCH_CHILD_EXIT } : {}) };
const work = mkdtempSync(join(tmpdir(), 'agent-mcp-instructions-'));

/** `path` as measured: a script-form function copied with its cache made under FLAGS, anything else as it is. */
function measured(label, path) {
  const script = path.replace(/\.js$/, '.script.js');
  if (script === path || !existsSync(script)) return path;
  const funcDir = dirname(dirname(path));
  const copy = join(work, label);
  cpSync(funcDir, copy, { recursive: true });
  const loader = join(copy, path.slice(funcDir.length));
  // The start-up script's cache, and those of the lazy features' chunks (scripts/script-form.mjs).
  for (const dir of [dirname(loader), join(copy, 'chunks')].filter(existsSync)) {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.cache'))) rmSync(join(dir, file));
  }
  const requests = WARM_UP[`api/${basename(path)}`] ?? [];
  const made = spawnSync(NODE, [...FLAGS, MAKE, 'make', loader, JSON.stringify(requests)], { env: { ...env, MEMORY_STORE_HEAP_GROWTH_PERCENT: '0' }, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`${label}: making its cache under ${FLAGS} failed:\n${made.stderr}`);
  const check = spawnSync(NODE, [...FLAGS, MAKE, 'check', loader], { env, encoding: 'utf8' });
  const { status } = JSON.parse(check.stdout.trim().split('\n').at(-1));
  if (status !== 'used') throw new Error(`${label}: its cache made under ${FLAGS} is ${status} by a fresh process`);
  return loader;
}

function instructions(path, wire) {
  const out = join(work, 'callgrind.out');
  const run = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, NODE, ...FLAGS, CHILD, path, wire], { encoding: 'utf8', env: childEnv });
  if (run.status !== 0) throw new Error(`callgrind of ${path} failed:\n${run.stderr.slice(-2000)}`);
  const totals = /^totals:\s+(\d+)/m.exec(readFileSync(out, 'utf8'));
  rmSync(out);
  return Number(totals[1]);
}

const targets = process.argv.slice(2).map((arg) => {
  const [label, path] = arg.split('=');
  return { label, path: measured(label, resolve(path)) };
});
try {
  let first;
  for (const wire of WIRES) {
    for (const { label, path } of targets) {
      const counts = Array.from({ length: RUNS }, () => instructions(path, wire));
      // The least of the runs: a run differs from another by whole events (a collection V8 times by the clock,
      // which valgrind slows), and the least is the run without them.
      const count = Math.min(...counts);
      first ??= count;
      console.log(`${`${label} ${wire}`.padEnd(24)} ${(count / 1e6).toFixed(1)}M instructions, least of ${RUNS}  (${count >= first ? '+' : ''}${((count - first) / 1e6).toFixed(1)}M; median ${(median(counts) / 1e6).toFixed(1)}M)`);
    }
    first = undefined;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
