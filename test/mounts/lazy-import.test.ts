/**
 * Optional heavy dependencies load only when configured: without MCP_MOUNTS the deployment's request path
 * never imports the official client package, which only mounts (and in-process listing) use.
 */

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('without mounts, initialize, tools/list and a chat never load @modelcontextprotocol/client', () => {
  const env = { ...process.env };
  delete env.MCP_MOUNTS;
  delete env.AGENT_URL;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--import', './test/support/import-trace.mjs', 'test/support/default-path.ts'],
    { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000 });
  expect(child.status, child.stderr).toBe(0);
  const loaded = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as string[];

  expect(loaded.some((url) => url.includes('/lib/server/dispatch.ts'))).toBe(true);
  expect(loaded.some((url) => url.includes('/lib/mounts/'))).toBe(true);
  expect(loaded.filter((url) => url.includes('@modelcontextprotocol/client'))).toEqual([]);
});
