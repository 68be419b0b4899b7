/**
 * Runs the official MCP conformance suite against the fixture server, as `npm test`'s last step.
 *
 * The suite needs Node >= 22 (it imports fs.globSync); our code runs on Node 20. So the fixture server runs
 * on this Node, and the suite on a Node 22 binary taken from the npm registry package `node-<os>-<arch>`,
 * installed once into .cache/. Both requirement sets run at their own wire: 2025-11-25 and 2026-07-28.
 * Every scored and pending scenario must pass: no check may end in FAILURE, and the baseline
 * (test/conformance/expected-failures.yaml) stays empty, so an entry in it fails the run as a stale baseline.
 * WARNINGs are printed but do not fail (the suite's own --expected-failures mode counts them as failures);
 * since legacy initialize issues a signed Mcp-Session-Id, none is expected.
 * Extension scenarios (tasks-*, skills) are reported by the suite but never scored; we do not implement them.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ensureNode22 } from './npm-cache.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SUITE = `${ROOT}node_modules/@modelcontextprotocol/conformance/dist/index.js`;
const BASELINE = `${ROOT}test/conformance/expected-failures.yaml`;
const REQUIREMENTS = ['2025-11-25', '2026-07-28'];

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    }).on('error', reject);
  });
}

async function startFixtureServer(port) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/conformance-server.ts'], {
    cwd: ROOT, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the fixture server did not start in 30 s')), 30_000);
    child.stdout.on('data', (chunk) => {
      if (String(chunk).includes('conformance fixture server on')) { clearTimeout(timer); resolve(); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`the fixture server exited (${code})`)); });
  });
  return child;
}

function runSuite(url, requirements, outputDir) {
  return new Promise((resolve) => {
    const child = spawn(NODE22, [SUITE, 'server', '--url', url, '--requirements', requirements, '-o', outputDir],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk) => { output += chunk; });
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/** Each scenario's check statuses, from the suite's `-o` files (`server-<scenario>-<timestamp>/checks.json`). */
function readChecks(outputDir) {
  const scenarios = new Map();
  for (const entry of readdirSync(outputDir)) {
    const name = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(entry)?.[1];
    if (!name) continue;
    const checks = JSON.parse(readFileSync(`${outputDir}/${entry}/checks.json`, 'utf8'));
    scenarios.set(name, [...(scenarios.get(name) ?? []), ...checks]);
  }
  return scenarios;
}

/** Scenarios the revision runs but does not score, with the suite's reason (pending, extension, …). */
function readUnscored(output) {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const block = plain.slice(plain.lastIndexOf('Not scored for'));
  return new Map([...block.matchAll(/^\s+[✓✗] ([\w.-]+) \(([^)]+)\)/gm)].map(([, name, why]) => [name, why]));
}

function readBaseline() {
  const entries = readFileSync(BASELINE, 'utf8').split('\n').filter((l) => /^\s*-\s*\S/.test(l));
  return entries.map((l) => l.replace(/^\s*-\s*/, '').trim());
}

const NODE22 = ensureNode22();
const port = await freePort();
const server = await startFixtureServer(port);
const url = `http://localhost:${port}/mcp`;
const baseline = readBaseline();
let passed = 0;
let failed = 0;
try {
  for (const requirements of REQUIREMENTS) {
    const outputDir = mkdtempSync(`${tmpdir()}/mcp-conformance-`);
    const { output } = await runSuite(url, requirements, outputDir);
    const checks = readChecks(outputDir);
    const unscored = readUnscored(output);
    rmSync(outputDir, { recursive: true, force: true });
    let scored = 0, scoredOk = 0, pending = 0, pendingOk = 0;
    const notes = [];
    for (const [name, list] of checks) {
      if (unscored.get(name) === 'extension') continue;
      const failures = list.filter((c) => c.status === 'FAILURE');
      const warnings = list.filter((c) => c.status === 'WARNING');
      const ok = failures.length === 0 && !baseline.includes(name);
      if (unscored.has(name)) { pending += 1; pendingOk += ok ? 1 : 0; } else { scored += 1; scoredOk += ok ? 1 : 0; }
      if (ok) passed += 1; else failed += 1;
      for (const c of failures) notes.push(`  ✗ ${name}: ${c.id}: ${c.errorMessage ?? c.description}`);
      for (const c of warnings) notes.push(`  ! ${name}: ${c.id} (warning): ${c.details?.message ?? c.description}`);
    }
    if (checks.size === 0) {
      console.log(output);
      failed += 1;
    }
    console.log(`conformance ${requirements}: scored scenarios ${scoredOk}/${scored}, pending ${pendingOk}/${pending}`);
    for (const note of notes) console.log(note);
  }
} finally {
  server.kill();
}
console.log(`conformance: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
