/**
 * jose loads only when needed (cold start is a product feature): never on the default path without
 * AUTH_ISSUER, and with it not before the first token arrives: challenges, preflights and the discovery
 * documents are answered without it.
 */

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = /^(AUTH_|UPSTASH_|KV_|RATE_LIMIT_|X402_|AGENT|MCP_MOUNTS|PUBLIC_URL|VERCEL)/;
const baseEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !CONFIG.test(name)));

function modulesLoadedBy(script: string, env: Record<string, string | undefined>): string[] {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--import', './test/support/import-trace.mjs', script],
    { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000 });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as string[];
}

const jose = (loaded: string[]) => loaded.filter((url) => url.includes('/node_modules/jose/'));

test('without AUTH_ISSUER the request path (initialize, tools/list, a chat) never loads jose', () => {
  const loaded = modulesLoadedBy('test/support/default-path.ts', baseEnv());
  expect(loaded.some((url) => url.includes('/lib/auth/'))).toBe(true);
  expect(jose(loaded)).toEqual([]);
});

test('with AUTH_ISSUER, a 401 challenge, a preflight and the discovery documents never load jose', () => {
  const loaded = modulesLoadedBy('test/support/unauthenticated-path.ts', { ...baseEnv(), AUTH_ISSUER: 'https://auth.example.com', AUTH_AUDIENCE: 'http://localhost/mcp' });
  expect(loaded.some((url) => url.includes('/lib/auth/index.ts'))).toBe(true);
  expect(jose(loaded)).toEqual([]);
});
