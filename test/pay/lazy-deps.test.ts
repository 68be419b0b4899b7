/**
 * Optional heavy dependencies load only when configured: without Upstash and X402_PAY_TO the deployment's
 * request path (initialize, tools/list, a chat) never imports @upstash/*, @x402/* or viem, with rate limits on
 * (memory) or off.
 */

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = /^(UPSTASH_|KV_|RATE_LIMIT_|X402_|AGENT|MCP_MOUNTS)/;

test.each([
  ['with no limits', {}],
  ['with memory rate limits', { RATE_LIMIT_IP: '100/1m', RATE_LIMIT_PRINCIPAL: '100/1m' }],
])('without Upstash or x402, %s, the request path never loads @upstash/*, @x402/* or viem', (_, extra) => {
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !CONFIG.test(name))), ...extra };
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--import', './test/support/import-trace.mjs', 'test/support/default-path.ts'],
    { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000 });
  expect(child.status, child.stderr).toBe(0);
  const loaded = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as string[];
  expect(loaded.some((url) => url.includes('/lib/pay/with-payment.ts'))).toBe(true);
  expect(loaded.some((url) => url.includes('/lib/limits/'))).toBe(true);
  expect(loaded.filter((url) => /node_modules\/(@upstash|@x402|viem)\//.test(url))).toEqual([]);
});
