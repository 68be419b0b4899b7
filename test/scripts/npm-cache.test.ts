/**
 * scripts/npm-cache.mjs installs a pinned tool into .cache/ from the npm registry. Without the registry (an offline
 * `npm run build` making the Node 24 code cache) it fails in one line naming npm's error code, with npm's own
 * output kept in a log file rather than printed (issue 43: 21 lines of raw `npm error ECONNREFUSED` came first).
 */

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { freePort } from '../support/free-port.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'agent-mcp-npm-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('with the registry refusing connections, the install fails in one line and npm\'s errors go to a log file', async () => {
  // A copy of the script, so that its .cache/ is the temporary directory's, not the project's (which may hold Node 24).
  mkdirSync(join(dir, 'scripts'));
  cpSync(join(ROOT, 'scripts/npm-cache.mjs'), join(dir, 'scripts/npm-cache.mjs'));
  const closed = await freePort();
  const script = `
    const { ensureNode } = await import('./scripts/npm-cache.mjs');
    try { ensureNode(24, { quick: true }); console.log('installed'); } catch (error) { console.log('THROWN ' + error.message); }`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: dir,
    encoding: 'utf8',
    // An empty npm cache: npm must ask the registry, which nothing answers.
    env: { ...process.env, npm_config_registry: `http://127.0.0.1:${closed}/`, npm_config_cache: join(dir, 'npm-cache'), npm_config_offline: 'false' },
    timeout: 120_000,
  });
  const output = `${run.stdout}${run.stderr}`;
  expect(output).not.toMatch(/npm (error|ERR!)/);
  expect(run.stdout.trim().split('\n')).toEqual([
    expect.stringMatching(/^installing node-\S+@24\.\S+ into \.cache\/node24 \(once\)$/),
    expect.stringMatching(/^THROWN could not install node-\S+@24\.\S+ from the npm registry \(npm exited 1: ECONNREFUSED; its output is in \.cache\/node24-install\.log\)$/),
  ]);
  expect(readFileSync(join(dir, '.cache/node24-install.log'), 'utf8')).toMatch(/npm (error|ERR!) code ECONNREFUSED/);
}, 130_000);
