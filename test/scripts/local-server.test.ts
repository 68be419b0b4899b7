/** `npm start` and `npm run smoke`, run as the commands a user types (real processes, real loopback HTTP). */

import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
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

  test.each([
    ['the landing page', 'GET / HTTP/1.1', '', 'HTTP/1.1 200 OK'],
    ['an MCP reply', 'POST /mcp HTTP/1.1', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', 'HTTP/1.1 200 OK'],
    ['a GET of the MCP endpoint', 'GET /mcp HTTP/1.1', '', 'HTTP/1.1 405 Method Not Allowed'],
    ['an unknown path', 'GET /nothing-here HTTP/1.1', '', 'HTTP/1.1 404 Not Found'],
    ['a Host no URL can hold', 'GET / HTTP/1.1', '', 'HTTP/1.1 400 Bad Request', 'localhost:99999'],
  ])('%s has the standard reason phrase on its status line', async (_what, requestLine, body, statusLine, host = new URL(origin).host) => {
    expect(await statusLineOf(requestLine, host, body)).toBe(statusLine);
  });
});

/** The first line of the server's answer, read off a raw socket (fetch hides the reason phrase). */
function statusLineOf(requestLine: string, host: string, body: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  const headers = [`Host: ${host}`, 'Connection: close', 'Content-Type: application/json', 'Accept: application/json, text/event-stream',
    'MCP-Protocol-Version: 2025-11-25', `Content-Length: ${Buffer.byteLength(body)}`];
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(`${requestLine}\r\n${headers.join('\r\n')}\r\n\r\n${body}`));
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => { received += chunk; });
    socket.on('error', reject);
    socket.on('close', () => resolve(received.split('\r\n')[0]!));
  });
}

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
