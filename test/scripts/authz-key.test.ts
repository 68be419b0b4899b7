/** `npm run authz-key` as a user runs it: a key line by default, its usage for --help, and no key for a stray argument. */

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/authz-key.mjs', import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });

describe('npm run authz-key', () => {
  test('prints one AUTH_SERVER_KEY line holding an ES256 private key', () => {
    const { status, stdout } = run();
    expect(status).toBe(0);
    const match = /^AUTH_SERVER_KEY='(.+)'\n$/.exec(stdout);
    expect(JSON.parse(match![1]!)).toMatchObject({ kty: 'EC', crv: 'P-256', d: expect.any(String) });
  });

  test.each(['--help', '-h', 'help'])('%s prints the usage and mints no key', (flag) => {
    const { status, stdout } = run(flag);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^Usage: npm run authz-key\n/);
    expect(stdout).not.toContain('AUTH_SERVER_KEY=\'');
  });

  test('a stray argument is refused with the usage, and no key', () => {
    const { status, stdout, stderr } = run('--size');
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('authz-key: unknown argument "--size"');
  });
});
