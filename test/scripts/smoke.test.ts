/**
 * `npm run smoke` as a user runs it (real processes, loopback HTTP): against `npm start` with OAuth on (a real
 * token issuer on loopback), with API keys (MCP_API_KEYS), with an agent whose upstream refuses its key, and against
 * stand-ins for Vercel Deployment Protection (one answering as a protected preview does, one a bare 401; the real one
 * is not reachable from tests), alone and in front of a key server.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { keyLine, mintTestKey } from '../support/api-keys.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { startVercelProtection, type VercelProtection } from '../support/vercel-protection.js';

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

describe('a server with API keys (MCP_API_KEYS), whose mcp.json says api-key', () => {
  const key = mintTestKey();
  let server: { origin: string; child: ChildProcess };
  beforeAll(async () => {
    server = await startServer({ MCP_API_KEYS: keyLine('smoke', key) });
  });
  afterAll(() => { server?.child.kill(); });

  test('with the key given: every check passes, through tools/call', async () => {
    const { code, stdout } = await smoke([`${server.origin}/mcp`, '--header', `Authorization: Bearer ${key}`]);
    expect(stdout).toContain('auth: API key (the endpoint accepted the key given)');
    expect(stdout).toContain('✓ tools/list');
    expect(stdout).toContain('✓ tools/call chat_with_agent');
    expect(stdout).not.toContain('Vercel');
    expect(lastLine(stdout)).toBe('smoke: passed');
    expect(code).toBe(0);
  });

  test('without a key: says the server needs one, not that Vercel protects it', async () => {
    const { code, stdout } = await smoke([`${server.origin}/mcp`]);
    expect(stdout).toContain(`${server.origin}/mcp needs an API key (its mcp.json says api-key): pass --header "Authorization: Bearer <key>".`);
    expect(stdout).not.toContain('Vercel');
    expect(lastLine(stdout)).toBe('smoke: FAILED');
    expect(code).toBe(1);
  });

  test('with a wrong key: says the server refused it', async () => {
    const { code, stdout } = await smoke([`${server.origin}/mcp`, '--header', `Authorization: Bearer ${mintTestKey()}`]);
    expect(stdout).toContain(`${server.origin}/mcp refused the API key given (401: `);
    expect(stdout).not.toContain('Vercel');
    expect(code).toBe(1);
  });
});

describe('a protected Vercel preview (Deployment Protection stood in for on loopback, answering as Vercel does)', () => {
  const secret = 'bypass-secret';
  const key = mintTestKey();
  let gate: VercelProtection;
  let server: { origin: string; child: ChildProcess };
  beforeAll(async () => {
    gate = await startVercelProtection(secret);
    // The key server behind the gate advertises the gate's origin, as a preview advertises its own.
    server = await startServer({ MCP_API_KEYS: keyLine('smoke', key), PUBLIC_URL: gate.origin });
    gate.setUpstream(server.origin);
  });
  afterAll(async () => {
    server?.child.kill();
    await gate?.close();
  });

  test('without the bypass header: says it is Vercel Deployment Protection and how to pass it', async () => {
    const { code, stdout } = await smoke([`${gate.origin}/mcp`]);
    expect(stdout).toContain('answered 401 from Vercel Deployment Protection (its sign-in page, not the server): pass --header "x-vercel-protection-bypass: <secret>"');
    expect(lastLine(stdout)).toBe('smoke: FAILED');
    expect(code).toBe(1);
  });

  test('with the API key but not the bypass header: still Vercel\'s 401, not the key\'s', async () => {
    const { code, stdout } = await smoke([`${gate.origin}/mcp`, '--header', `Authorization: Bearer ${key}`]);
    expect(stdout).toContain('from Vercel Deployment Protection');
    expect(stdout).not.toContain('API key');
    expect(code).toBe(1);
  });

  test('with a wrong bypass secret: says the secret was refused', async () => {
    const { code, stdout } = await smoke([`${gate.origin}/mcp`, '--header', 'x-vercel-protection-bypass: wrong', '--header', `Authorization: Bearer ${key}`]);
    expect(stdout).toContain('Vercel Deployment Protection refused the x-vercel-protection-bypass header');
    expect(code).toBe(1);
  });

  test('with both headers: every probe carries them (the gate refuses any that does not) and the run passes', async () => {
    const { code, stdout } = await smoke([`${gate.origin}/mcp`, '--header', `x-vercel-protection-bypass: ${secret}`, '--header', `Authorization: Bearer ${key}`]);
    expect(stdout).toContain('auth: API key (the endpoint accepted the key given)');
    expect(stdout).toContain('✓ tools/call chat_with_agent');
    expect(lastLine(stdout)).toBe('smoke: passed');
    expect(code).toBe(0);
  });
});

describe('a 401 without an OAuth challenge from something that does not say it is Vercel (a bare loopback server)', () => {
  let protection: Server;
  let origin: string;
  beforeAll(async () => {
    protection = createServer((_req, res) => res.writeHead(401, { 'content-type': 'text/html' }).end('<!doctype html><title>Authentication Required</title>'));
    origin = await listen(protection);
  });
  afterAll(() => { protection?.close(); });

  test('says the bypass header is probably missing', async () => {
    const { code, stdout } = await smoke([`${origin}/mcp`]);
    expect(stdout).toContain('answered 401 without agent-mcp\'s challenge. This looks like Vercel Deployment Protection: the bypass header is probably missing; pass --header "x-vercel-protection-bypass: <secret>"');
    expect(lastLine(stdout)).toBe('smoke: FAILED');
    expect(code).toBe(1);
  });

  test('with the header sent, says the secret was refused', async () => {
    const { code, stdout } = await smoke([`${origin}/mcp`, '--header', 'x-vercel-protection-bypass: wrong']);
    expect(stdout).toContain('refused the x-vercel-protection-bypass header');
    expect(code).toBe(1);
  });
});

describe('smoke\'s own arguments', () => {
  function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
    const child = tsx(['scripts/smoke.ts', ...args]);
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk) => { out += chunk; });
    child.stderr!.on('data', (chunk) => { err += chunk; });
    return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
  }

  test('--help prints the usage and exits 0, checking nothing', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    expect(out).toMatch(/^Usage: npm run smoke -- <mcp-url> \[--header "Name: Value"\]\.\.\./);
    expect(out).not.toContain('smoke test of');
  });

  test.each([
    [['not-a-url'], '"not-a-url" is not a URL'],
    [[], 'no MCP URL given'],
    [['http://localhost:1/mcp', '--header', 'no-colon'], '--header must look like "Name: Value"'],
  ])('%j: says what is wrong and the usage, exit 2, no stack trace', async (args, said) => {
    const { code, err } = await run(args);
    expect(code).toBe(2);
    expect(err).toContain(`smoke: ${said}`);
    expect(err).toContain('Usage: npm run smoke');
    expect(err).not.toMatch(/^\s+at /m);
  });
});
