/** `npm start` and `npm run smoke`, run as the commands a user types (real processes, real loopback HTTP). */

import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function run(args: string[], env: Record<string, string> = {}) {
  return spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

function output(child: ChildProcess): Promise<{ code: number | null; stdout: string }> {
  let stdout = '';
  child.stdout!.on('data', (chunk) => { stdout += chunk; });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout })));
}

let server: ChildProcess;
let origin: string;

beforeAll(async () => {
  server = run(['scripts/serve.ts'], { PORT: '0' });
  origin = await new Promise<string>((resolve, reject) => {
    server.stdout!.on('data', (chunk) => {
      const match = /agent-mcp ready: (http:\/\/\S+)\/mcp /.exec(String(chunk));
      if (match) resolve(match[1]!);
    });
    server.on('exit', (code) => reject(new Error(`npm start exited with ${code}`)));
  });
});
afterAll(() => {
  server.kill();
});

describe('npm start', () => {
  test('serves the MCP endpoint at /mcp and /api/mcp with the demo agent', async () => {
    for (const path of ['/mcp', '/api/mcp']) {
      const response = await fetch(`${origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message: 'hello' } } }),
      });
      const body = await response.json();
      expect(body.result.structuredContent).toMatchObject({ agent_id: 'demo', reply: expect.stringContaining('[demo agent]') });
    }
  });

  test('serves the landing page at /', async () => {
    const response = await fetch(`${origin}/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('agent-mcp');
  });

  test('an unknown path is 404', async () => {
    expect((await fetch(`${origin}/nothing-here`)).status).toBe(404);
  });
});

describe('npm run smoke', () => {
  test('reports a passing server: connect, tools/list and one tools/call', async () => {
    const { code, stdout } = await output(run(['scripts/smoke.ts', `${origin}/mcp`, '--header', 'x-anything: 1']));
    expect(stdout).toContain('✓ tools/list');
    expect(stdout).toContain('✓ tools/call chat_with_agent');
    expect(stdout.trim().split('\n').at(-1)).toBe('smoke: passed');
    expect(code).toBe(0);
  });

  test('reports a failing URL and exits non-zero', async () => {
    const { code, stdout } = await output(run(['scripts/smoke.ts', `${origin}/nothing-here`]));
    expect(stdout.trim().split('\n').at(-1)).toBe('smoke: FAILED');
    expect(code).toBe(1);
  });
});
