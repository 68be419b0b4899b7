/**
 * The request log writes to stdout directly (lib/observe/request-log.ts): when nobody reads stdout any more (its
 * pipe closed: EPIPE), the lines are lost and the server goes on serving, as it did when console.log wrote them.
 */

import { spawn } from 'node:child_process';
import { expect, test } from 'vitest';

const SCRIPT = `
  const { createMcpHandler } = await import('./api/mcp.ts');
  const { createDefaultApp } = await import('./lib/app.ts');
  const handle = createMcpHandler(createDefaultApp());
  const send = () => handle(new Request('http://localhost/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  }));
  // Wait until the parent has closed our stdout, then log many lines into the broken pipe.
  await new Promise((resolve) => process.stdin.once('data', resolve));
  let ok = 0;
  for (let i = 0; i < 200; i++) {
    const response = await send();
    if (response.status === 200) ok++;
    await new Promise((resolve) => setImmediate(resolve));
  }
  process.stderr.write('served ' + ok + '\\n', () => process.exit(0));
`;

test('a closed stdout loses the request lines, not the process: every request is still answered', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    cwd: process.cwd(), env: { PATH: process.env.PATH!, MCP_LOG: 'on' }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdout.destroy();
  child.stdin.write('go\n');
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(stderr).toContain('served 200');
  expect(code, stderr).toBe(0);
}, 30_000);
