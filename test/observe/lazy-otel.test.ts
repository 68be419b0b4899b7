/**
 * `@opentelemetry/api` costs tens of milliseconds to import, so the request path imports it only once an
 * OpenTelemetry SDK has registered itself: a traced client's requests to a deployment without one load nothing
 * of OpenTelemetry (the SDK-registered case is test/observe/tracing.test.ts).
 */

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = /^(AUTH_|UPSTASH_|KV_|RATE_LIMIT_|X402_|AGENT|MCP_|PUBLIC_URL|VERCEL|OTEL_)/;

test('without an SDK, requests carrying a traceparent never load @opentelemetry/api', () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !CONFIG.test(name)));
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--import', './test/support/import-trace.mjs', 'test/support/default-path.ts'],
    { cwd: ROOT, env: { ...env, MCP_LOG: 'off' }, encoding: 'utf8', timeout: 30_000 });
  expect(child.status, child.stderr).toBe(0);
  const loaded = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as string[];
  expect(loaded.some((url) => url.includes('/lib/observe/tracing.ts'))).toBe(true);
  expect(loaded.filter((url) => url.includes('/node_modules/@opentelemetry/'))).toEqual([]);
});
