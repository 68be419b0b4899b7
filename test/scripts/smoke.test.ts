/**
 * `npm run smoke` as a user runs it (real processes, loopback HTTP): against `npm start` with OAuth on (a real
 * token issuer on loopback), with an agent whose upstream refuses its key, and against a stand-in for Vercel
 * Deployment Protection (a server answering 401 to everything; the real one is not reachable from tests).
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startIssuer, type TestIssuer } from '../support/issuer.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function tsx(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

function smoke(args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = tsx(['scripts/smoke.ts', ...args]);
  let stdout = '';
  child.stdout!.on('data', (chunk) => { stdout += chunk; });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout })));
}

/** `npm start` with `env`, resolved with its origin once it listens. */
async function startServer(env: Record<string, string>): Promise<{ origin: string; child: ChildProcess }> {
  const child = tsx(['scripts/serve.ts'], { PORT: '0', ...env });
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      const match = /agent-mcp ready: (http:\/\/\S+)\/mcp /.exec(String(chunk));
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}`)));
  });
  return { origin, child };
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)));
}

const lastLine = (stdout: string) => stdout.trim().split('\n').at(-1);

describe('a server with OAuth on', () => {
  let issuer: TestIssuer;
  let server: { origin: string; child: ChildProcess };
  beforeAll(async () => {
    issuer = await startIssuer();
    server = await startServer({ AUTH_ISSUER: issuer.issuer, AUTH_SCOPES: 'agents:chat' });
  });
  afterAll(async () => {
    server?.child.kill();
    await issuer?.close();
  });

  test('without a token: the discovery documents, the 401 challenge, the metadata it names and the authorization server\'s are checked', async () => {
    const { code, stdout } = await smoke([`${server.origin}/mcp`]);
    expect(stdout).toContain('✓ discovery /.well-known/mcp.json');
    expect(stdout).toContain('✓ discovery /mcp.json');
    expect(stdout).toContain('✓ server card /mcp/server-card');
    expect(stdout).toContain('✓ discovery /.well-known/ai-catalog.json');
    expect(stdout).toContain(`✓ 401 challenge → ${server.origin}/mcp/oauth-protected-resource`);
    expect(stdout).toContain(`resource ${server.origin}/mcp, authorization server ${issuer.issuer}, scope "agents:chat"`);
    expect(stdout).toContain('pass --header "Authorization: Bearer <token>"');
    expect(stdout).not.toContain('tools/list');
    expect(lastLine(stdout)).toBe('smoke: passed');
    expect(code).toBe(0);
  });

  test('with a token: past the challenge to tools/list and tools/call', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.mint({ iss: issuer.issuer, aud: `${server.origin}/mcp`, sub: 'smoke', scope: 'agents:chat', iat: now, exp: now + 120 });
    const { code, stdout } = await smoke([`${server.origin}/mcp`, '--header', `Authorization: Bearer ${token}`]);
    expect(stdout).toContain('✓ 401 challenge');
    expect(stdout).toContain('✓ tools/call chat_with_agent');
    expect(lastLine(stdout)).toBe('smoke: passed');
    expect(code).toBe(0);
  });
});

describe('a tool error', () => {
  let upstream: Server;
  let server: { origin: string; child: ChildProcess };
  beforeAll(async () => {
    // An OpenAI-compatible upstream that refuses the key, as a real provider does with a wrong AGENT_API_KEY.
    upstream = createServer((_req, res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"bad key"}}'));
    server = await startServer({ AGENT_URL: `${await listen(upstream)}/v1`, AGENT_MODEL: 'm', AGENT_API_KEY: 'wrong' });
  });
  afterAll(() => {
    server?.child.kill();
    upstream?.close();
  });

  test('fails the run (exit 1) with the reason', async () => {
    const { code, stdout } = await smoke([`${server.origin}/mcp`]);
    expect(stdout).toMatch(/✗ tools\/call chat_with_agent: tool error: .*HTTP 401/);
    expect(lastLine(stdout)).toBe('smoke: FAILED');
    expect(code).toBe(1);
  });
});

describe('a 401 without an OAuth challenge (Vercel Deployment Protection, stood in for by a loopback server)', () => {
  let protection: Server;
  let origin: string;
  beforeAll(async () => {
    protection = createServer((_req, res) => res.writeHead(401, { 'content-type': 'text/html' }).end('<!doctype html><title>Authentication Required</title>'));
    origin = await listen(protection);
  });
  afterAll(() => { protection?.close(); });

  test('says the bypass header is probably missing', async () => {
    const { code, stdout } = await smoke([`${origin}/mcp`]);
    expect(stdout).toContain('the bypass header is probably missing; pass --header "x-vercel-protection-bypass: <secret>"');
    expect(lastLine(stdout)).toBe('smoke: FAILED');
    expect(code).toBe(1);
  });

  test('with the header sent, says the secret was refused', async () => {
    const { code, stdout } = await smoke([`${origin}/mcp`, '--header', 'x-vercel-protection-bypass: wrong']);
    expect(stdout).toContain('refused the x-vercel-protection-bypass header');
    expect(code).toBe(1);
  });
});
