/**
 * Runs the official MCP conformance suite against the fixture server, as `npm test`'s last step.
 *
 * The suite needs Node >= 22 (it imports fs.globSync); our code runs on Node 20. So the fixture server runs
 * on this Node, and the suite on a Node 22 binary taken from the npm registry package `node-<os>-<arch>`,
 * installed once into .cache/. Both requirement sets run at their own wire: 2025-11-25 and 2026-07-28.
 * Every scenario the suite runs is judged, scored, pending and extension alike: none may have a check end in
 * FAILURE, nor skip every check of its own (an extension the server does not declare skips them all), and the
 * baseline (test/conformance/expected-failures.yaml) stays empty, so an entry in it fails the run as a stale
 * baseline. Extension scenarios that no requirement set includes (the skills extension's `sep-2640-*`) run
 * one by one with `--scenario`, at the wire the suite defines them for (2026-07-28).
 * WARNINGs are printed but do not fail (the suite's own --expected-failures mode counts them as failures);
 * since legacy initialize issues a signed Mcp-Session-Id, none is expected.
 */

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ensureNode22 } from './npm-cache.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SUITE = `${ROOT}node_modules/@modelcontextprotocol/conformance/dist/index.js`;
const BASELINE = `${ROOT}test/conformance/expected-failures.yaml`;
const REQUIREMENTS = ['2025-11-25', '2026-07-28'];
/** Checks every scenario emits whatever it tests; they prove nothing of the scenario's own checks. */
const GENERIC_CHECKS = new Set(['wire-schema-valid']);
/**
 * Scenarios whose every check the suite itself skips, whatever the server does (alpha.12 source); they pass
 * with a note while that lasts, and are judged like any other once the suite tests them.
 */
const SKIPPED_BY_THE_SUITE = new Map([
  ['tasks-status-notifications', 'its harness awaits a rewrite onto the subscriptions/listen stream'],
]);

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

/** Runs `server --url <url> ...selection -o <outputDir>`; selection is `--requirements R` or `--scenario S`. */
function runSuite(url, selection, outputDir) {
  return new Promise((resolve) => {
    const child = spawn(NODE22, [SUITE, 'server', '--url', url, ...selection, '-o', outputDir],
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

/** The server scenarios the suite tags `[extension]` (`list --server`). */
function listExtensionScenarios() {
  const { stdout, status } = spawnSync(NODE22, [SUITE, 'list', '--server'], { cwd: ROOT, encoding: 'utf8' });
  if (status !== 0) throw new Error(`conformance list --server exited ${status}`);
  return [...stdout.matchAll(/^\s+- ([\w.-]+) \[extension\]/gm)].map(([, name]) => name);
}

/** Whether a scenario passed, and a line per failing, skipped-through or warning check. */
function judge(name, checks, baseline) {
  const failures = checks.filter((c) => c.status === 'FAILURE');
  const own = checks.filter((c) => !GENERIC_CHECKS.has(c.id));
  const skippedThrough = own.length > 0 && own.every((c) => c.status === 'SKIPPED');
  const allSkipped = skippedThrough && !SKIPPED_BY_THE_SUITE.has(name);
  const listed = baseline.includes(name);
  const notes = failures.map((c) => `  ✗ ${name}: ${c.id}: ${c.errorMessage ?? c.description}`);
  if (allSkipped) notes.push(`  ✗ ${name}: every check SKIPPED: ${own[0].errorMessage ?? own[0].description}`);
  else if (skippedThrough) notes.push(`  - ${name}: not tested, the suite skips every check: ${SKIPPED_BY_THE_SUITE.get(name)}`);
  if (listed) notes.push(`  ✗ ${name}: listed in ${BASELINE.slice(ROOT.length)}, which must stay empty`);
  for (const c of checks.filter((c) => c.status === 'WARNING')) {
    notes.push(`  ! ${name}: ${c.id} (warning): ${c.details?.message ?? c.errorMessage ?? c.description}`);
  }
  return { ok: failures.length === 0 && !allSkipped && !listed, notes };
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
const tally = { passed: 0, failed: 0, extensions: 0, extensionsOk: 0 };
const seen = new Set();

/** Judges each scenario into `buckets` (scored, pending, extension), prints them, and adds to the tally. */
function report(label, checks, bucketOf) {
  const buckets = new Map();
  const notes = [];
  for (const [name, list] of checks) {
    seen.add(name);
    const verdict = judge(name, list, baseline);
    const bucket = buckets.get(bucketOf(name)) ?? { ok: 0, all: 0 };
    buckets.set(bucketOf(name), { ok: bucket.ok + (verdict.ok ? 1 : 0), all: bucket.all + 1 });
    if (verdict.ok) tally.passed += 1; else tally.failed += 1;
    if (bucketOf(name) === 'extensions') { tally.extensions += 1; tally.extensionsOk += verdict.ok ? 1 : 0; }
    notes.push(...verdict.notes);
  }
  console.log(`conformance ${label}: ${[...buckets].map(([bucket, { ok, all }]) => `${bucket} ${ok}/${all}`).join(', ')}`);
  for (const note of notes) console.log(note);
}

try {
  for (const requirements of REQUIREMENTS) {
    const outputDir = mkdtempSync(`${tmpdir()}/mcp-conformance-`);
    const { output } = await runSuite(url, ['--requirements', requirements], outputDir);
    const checks = readChecks(outputDir);
    const unscored = readUnscored(output);
    rmSync(outputDir, { recursive: true, force: true });
    if (checks.size === 0) {
      console.log(output);
      tally.failed += 1;
    }
    const bucketOf = (name) => (!unscored.has(name) ? 'scored' : unscored.get(name) === 'extension' ? 'extensions' : 'pending');
    report(requirements, checks, bucketOf);
  }
  const rest = listExtensionScenarios().filter((name) => !seen.has(name));
  const outputDir = mkdtempSync(`${tmpdir()}/mcp-conformance-`);
  for (const name of rest) await runSuite(url, ['--scenario', name], outputDir);
  const checks = readChecks(outputDir);
  rmSync(outputDir, { recursive: true, force: true });
  for (const name of rest.filter((n) => !checks.has(n))) {
    console.log(`  ✗ ${name}: the suite wrote no checks for it`);
    tally.failed += 1;
    tally.extensions += 1;
  }
  if (rest.length > 0) report('extensions outside the requirement sets', checks, () => 'extensions');
} finally {
  server.kill();
}
const { passed, failed, extensions, extensionsOk } = tally;
console.log(`conformance: ${passed} passed, ${failed} failed (extensions ${extensionsOk}/${extensions})`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
