/**
 * `npm start` (scripts/serve.ts, a real process) serves the usage page over its own app's store: a call through
 * /mcp shows on /usage and /usage.json at once, and on loopback without sign-in even with API keys on, as its
 * start-up line says. A key without usage:read changes nothing there: loopback is open, on this machine only.
 */

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { bearer, keyLine, mintTestKey } from '../../support/api-keys.js';
import { freePort } from '../../support/free-port.js';
import { POST_HEADERS } from '../../support/server.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

test('a call through /mcp of npm start shows on its usage page, open to loopback without sign-in', async () => {
  const key = mintTestKey();
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/serve.ts'], {
    cwd: ROOT, env: { ...process.env, PORT: String(port), MCP_LOG: 'off', MCP_API_KEYS: keyLine('ci', key) }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  try {
    await expect.poll(() => output, { timeout: 20_000 }).toMatch(/\n {2}usage +http:\/\/localhost:\d+\/usage \(loopback: no sign-in; others: API keys with the scope usage:read\)\n/);
    const url = `http://localhost:${port}`;
    const call = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...POST_HEADERS, 'mcp-protocol-version': '2025-11-25', ...bearer(key) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message: 'count me' } } }),
    });
    expect(call.status).toBe(200);
    await call.text();
    const json = await fetch(`${url}/usage.json?window=hour`);
    expect(json.status).toBe(200);
    const view = await json.json();
    expect(view.totals.calls).toBe(1);
    expect(view.topCallers.map((c: { label: string }) => c.label)).toEqual(['api-key:ci']);
    const html = await (await fetch(`${url}/usage`)).text();
    expect(html).toContain('<dd data-key="calls">1</dd>');
    expect(html).toContain('Open without sign-in: npm start serves this page to loopback on this machine only.');
  } finally {
    child.kill();
  }
}, 40_000);
