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

describe('npm run authz-key for a rotation', () => {
  const runWith = (env: Record<string, string>, ...args: string[]) =>
    spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH!, ...env } });

  test('next prints one AUTH_SERVER_NEXT_KEY line on stdout and the steps on stderr', () => {
    const { status, stdout, stderr } = run('next');
    expect(status).toBe(0);
    const match = /^AUTH_SERVER_NEXT_KEY='(.+)'\n$/.exec(stdout);
    expect(JSON.parse(match![1]!)).toMatchObject({ kty: 'EC', crv: 'P-256', d: expect.any(String) });
    expect(stderr).toContain('npm run authz-key -- promote');
  });

  test('promote makes the next key sign and keeps the current one as AUTH_SERVER_OLD_KEY, which the server then accepts', async () => {
    const current = /'(.+)'/.exec(run().stdout)![1]!;
    const next = /'(.+)'/.exec(run('next').stdout)![1]!;
    const { status, stdout, stderr } = runWith({ AUTH_SERVER_KEY: current, AUTH_SERVER_NEXT_KEY: next }, 'promote');
    expect(status).toBe(0);
    expect(stdout).toBe(`AUTH_SERVER_KEY='${next}'\nAUTH_SERVER_OLD_KEY='${current}'\nAUTH_SERVER_NEXT_KEY=\n`);
    expect(stderr).toContain('remove AUTH_SERVER_OLD_KEY');
    const { readAuthConfig } = await import('../../lib/auth/config.js');
    const config = readAuthConfig({ AUTH_SERVER_KEY: next, AUTH_SERVER_OLD_KEY: current })!;
    expect(config.acceptedKeys!.map((key) => key.x)).toEqual([JSON.parse(next).x, JSON.parse(current).x]);
  });

  test('promote without both keys in the environment says which is missing and prints no settings', () => {
    const { status, stdout, stderr } = runWith({ AUTH_SERVER_KEY: /'(.+)'/.exec(run().stdout)![1]! }, 'promote');
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('AUTH_SERVER_NEXT_KEY is not set');
  });
});
