/**
 * `npm test`'s first step (scripts/test-prereqs.mjs), run as a real process with a PATH that lacks redis-server:
 * as root on Debian it would install it with apt-get (`--dry-run` prints the commands; nothing is uninstalled),
 * as any other user it names the exact command and fails. The install plan per system is a table.
 * The checkout may sit where no other user can read it (a clone under /root, or in `mktemp -d`): the run as
 * another user takes the script from a copy that user can read.
 */

import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
// @ts-expect-error plain ESM helper without type declarations
import { describeMachine, planInstall } from '../../scripts/test-prereqs.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NOBODY = 65534;
/** A PATH holding only `node`: no redis-server on it. */
const bin = mkdtempSync(`${tmpdir()}/agent-mcp-path-`);
symlinkSync(process.execPath, `${bin}/node`);
const scratch: string[] = [bin];
afterAll(() => { for (const dir of scratch) rmSync(dir, { recursive: true, force: true }); });

function prereqs(args: string[], options: { env?: Record<string, string>; uid?: number; cwd?: string } = {}) {
  const result = spawnSync(process.execPath, ['scripts/test-prereqs.mjs', ...args], {
    cwd: options.cwd ?? ROOT, encoding: 'utf8', env: { PATH: bin, ...options.env }, ...(options.uid !== undefined ? { uid: options.uid, gid: options.uid } : {}),
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * A directory `uid` owns holding the script and what it imports, and a browser that starts (a stub printing its
 * version, so only redis-server is missing): the run as that user reads nothing of the checkout.
 */
function copyReadableBy(uid: number): { cwd: string; browser: string } {
  const cwd = mkdtempSync(`${tmpdir()}/agent-mcp-prereqs-`);
  scratch.push(cwd);
  chmodSync(cwd, 0o755);
  mkdirSync(`${cwd}/scripts`);
  for (const file of ['scripts/test-prereqs.mjs', 'scripts/chromium.mjs']) copyFileSync(`${ROOT}${file}`, `${cwd}/${file}`);
  const browser = `${cwd}/chromium`;
  writeFileSync(browser, '#!/bin/sh\necho "Chromium 1.0"\n', { mode: 0o755 });
  for (const path of [cwd, `${cwd}/scripts`]) chownSync(path, uid, uid);
  return { cwd, browser };
}

const machine = describeMachine();
const rootOnDebian = machine.debian && machine.root;

describe('redis-server missing from PATH', () => {
  test.runIf(rootOnDebian)('as root on Debian, npm test installs it with apt-get, noninteractive and without recommends', () => {
    const { code, stdout } = prereqs(['--dry-run']);
    expect(stdout.trim().split('\n')).toEqual([
      'test-prereqs: would run: apt-get update -qq',
      'test-prereqs: would run: apt-get install -y -qq --no-install-recommends redis-server',
    ]);
    expect(code).toBe(0);
  });

  test.runIf(rootOnDebian)('as another user on Debian, it names the sudo command in one line and fails', () => {
    const { cwd, browser } = copyReadableBy(NOBODY);
    const { code, stdout, stderr } = prereqs([], { uid: NOBODY, cwd, env: { CHROMIUM_PATH: browser } });
    expect(stdout).toBe('');
    expect(stderr).toBe('npm test needs redis-server: run `sudo apt-get install redis-server`, then npm test again.\n');
    expect(code).toBe(1);
  });
});

test('a CHROMIUM_PATH that does not start fails with one line saying so', () => {
  const { code, stderr } = prereqs(['--dry-run'], { env: { PATH: `${bin}:/usr/bin:/bin`, CHROMIUM_PATH: '/nonexistent/chrome' } });
  expect(stderr.trim()).toMatch(/^npm test: the browser at \/nonexistent\/chrome does not start \(.*\); set CHROMIUM_PATH to a Chrome or Chromium that does\.$/);
  expect(code).toBe(1);
});

describe('the install plan names the exact command for each system', () => {
  const base = { platform: 'linux', debian: false, fedora: false, alpine: false, arch: false, root: false, brew: false };
  test.each([
    ['macOS', { ...base, platform: 'darwin' }, ['redis'], 'brew install redis'],
    ['macOS without a browser', { ...base, platform: 'darwin' }, ['redis', 'chromium'], 'brew install redis && brew install --cask chromium'],
    ['Debian as a user', { ...base, debian: true }, ['redis'], 'sudo apt-get install redis-server'],
    ['Debian without the NSS libraries', { ...base, debian: true }, ['redis', 'nss'], 'sudo apt-get install redis-server libnss3'],
    ['Fedora', { ...base, fedora: true }, ['redis'], 'sudo dnf install redis'],
    ['Alpine', { ...base, alpine: true }, ['redis'], 'apk add redis'],
    ['Arch', { ...base, arch: true }, ['redis'], 'sudo pacman -S redis'],
  ])('%s: %j → %s', (_, system, needs, command) => {
    expect(planInstall(needs, system)).toEqual({ tell: command });
  });

  test('Debian as root runs apt-get itself', () => {
    expect(planInstall(['redis', 'nss'], { ...base, debian: true, root: true })).toEqual({
      run: [['apt-get', 'update', '-qq'], ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'redis-server', 'libnss3']],
    });
  });
});
