/**
 * What calls cost the shared store (issue 13): per scenario, the serial round trips on the call's path and the
 * billed commands (a script's EVALSHA is one; INFO commandstats' count of what Redis executed, scripts' inner
 * commands included, is shown beside it), against the targets in docs/performance.md. Runs the scenarios of
 * bench/store-cost-run.mjs in a child process (`node --import tsx`, for the TypeScript test support it uses).
 * Standalone: `node bench/store-cost.mjs` (knobs BENCH_STORE_SCALE, 20: time runs that many times faster,
 * counts unchanged; BENCH_STORE_SKIP_LONG=1 leaves out the 10-minute call).
 */

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export function measureStoreCost() {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/store-cost-run.mjs'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1);
      if (code !== 0 || !line) return reject(new Error(`bench/store-cost-run.mjs exited ${code}`));
      resolve(JSON.parse(line));
    });
  });
}

const goal = (t) => [t.serial !== undefined ? `≤ ${t.serial} serial` : '', t.commands !== undefined ? `≤ ${t.commands} commands` : '',
  t.perEvent !== undefined ? `≤ ${t.perEvent} log commands per event` : ''].filter(Boolean).join(', ') || '—';

function met(row) {
  const t = row.target;
  const checks = [];
  if (t.serial !== undefined) checks.push(row.pathRoundTrips / row.per <= t.serial);
  if (t.commands !== undefined) checks.push(row.commands / row.per <= t.commands);
  if (t.perEvent !== undefined) checks.push(((row.byCommand.RPUSH ?? 0) + (row.byCommand.PEXPIRE ?? 0)) <= t.perEvent * row.events);
  return checks.length ? (checks.every(Boolean) ? 'yes' : 'no') : '';
}

export function renderStoreCost(r) {
  const n = (x, per) => (per === 1 ? String(x) : String(Math.round((x / per) * 10) / 10));
  const rows = r.rows.map((row) => {
    const commands = Object.entries(row.byCommand).map(([name, count]) => `${name} ${n(count, row.per)}`).join(', ');
    return `| ${row.name} | ${n(row.pathRoundTrips, row.per)} | ${n(row.watchReads, row.per)} | ${n(row.commands, row.per)} (${commands}) | ${n(row.executed, row.per)} | ${goal(row.target)} | ${met(row)} |`;
  });
  return [
    `Store cost: agent-mcp as deployed on a real redis-server behind the Upstash REST bridge; the bridge's request log counts round trips and billed commands. Watch tick ${r.defaultTickMs} ms (STORE_WATCH_MS), time scaled ${r.scale}× (counts as at the default).`,
    '',
    '| scenario | round trips on the call\'s path | watch reads (MGET) | billed commands | executed by Redis | target | met |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `A conversation of two turns leaves ${r.leftover.keys.length} key(s) (${r.leftover.keys.join(', ')}), ${r.leftover.bytes} bytes (MEMORY USAGE). `
      + `A cancellation POSTed to another instance took effect after ${r.cancelMs} ms (bound: STORE_WATCH_MS + one round trip).`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(renderStoreCost(await measureStoreCost()));
}
