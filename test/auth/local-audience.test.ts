/**
 * Served locally with auth on and no canonical URL, the token audience (RFC 8707) is the URL of the port the server
 * listens on: a Host naming another loopback port names another resource, and a token minted for that resource is
 * refused here (MCP authorization §Token Audience Binding). `npm start` knows its port; a deployment's app built
 * without one refuses to start. Real processes and loopback HTTP, with a real token issuer.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDefaultApp } from '../../lib/app.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { sendWithHost } from '../support/rpc.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let issuer: TestIssuer;
let child: ChildProcess;
let origin: string;

beforeAll(async () => {
  issuer = await startIssuer();
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(AUTH_|PUBLIC_URL|VERCEL)/.test(name)));
  child = spawn(process.execPath, ['--import', 'tsx', 'scripts/serve.ts'], {
    cwd: ROOT, env: { ...env, PORT: '0', AUTH_ISSUER: issuer.issuer, AUTH_SCOPES: 'agents:chat' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  origin = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      const match = /agent-mcp ready: (http:\/\/\S+)\/mcp /.exec(String(chunk));
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}`)));
  });
});
afterAll(async () => {
  child?.kill();
  await issuer?.close();
});

const now = () => Math.floor(Date.now() / 1000);
const tokenFor = (aud: string) => issuer.mint({ iss: issuer.issuer, aud, sub: 'alice', scope: 'agents:chat', iat: now(), exp: now() + 120 });

/** A request to the server naming any Host; a POST is tools/list. */
const send = (path: string, host: string, method: 'GET' | 'POST', headers: Record<string, string> = {}) =>
  sendWithHost(origin, path, host, method, { 'mcp-protocol-version': '2025-11-25', ...headers }, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}');

describe('npm start with AUTH_ISSUER and no PUBLIC_URL or AUTH_AUDIENCE', () => {
  test('a token minted for another loopback port is refused, even when the Host names that port', async () => {
    const other = 'localhost:4000';
    const { status } = await send('/mcp', other, 'POST', { authorization: `Bearer ${await tokenFor(`http://${other}/mcp`)}` });
    expect(status).toBe(401);
  });

  test('a token minted for the served URL is accepted, by any loopback name of it', async () => {
    const { port } = new URL(origin);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      const { status } = await send('/mcp', host, 'POST', { authorization: `Bearer ${await tokenFor(`http://${host}/mcp`)}` });
      expect([host, status]).toEqual([host, 200]);
    }
  });

  test('the protected resource metadata names the served port, whatever port the Host names', async () => {
    const { port } = new URL(origin);
    const { body } = await send('/.well-known/oauth-protected-resource/mcp', 'localhost:4000', 'GET');
    expect(JSON.parse(body).resource).toBe(`http://localhost:${port}/mcp`);
  });
});

describe('a deployment\'s app that would take the audience from the Host', () => {
  test('refuses to start, naming PUBLIC_URL and AUTH_AUDIENCE', () => {
    expect(() => createDefaultApp({ AUTH_ISSUER: issuer.issuer, MCP_LOG: 'off' }))
      .toThrow(new TypeError('AUTH_ISSUER is set but this server has no canonical URL for the token audience: set PUBLIC_URL '
        + '(or AUTH_AUDIENCE), or serve it with npm start, which pins the audience to the port it listens on (PORT). Off Vercel, '
        + 'the audience would otherwise follow the Host header a client sends.'));
  });

  test('starts with PUBLIC_URL, with AUTH_AUDIENCE, on Vercel, or with the PORT npm start serves', () => {
    for (const extra of [{ PUBLIC_URL: 'https://agent.example.com' }, { AUTH_AUDIENCE: 'https://api.example.com' }, { VERCEL: '1' }, { PORT: '3000' }]) {
      expect(() => createDefaultApp({ AUTH_ISSUER: issuer.issuer, MCP_LOG: 'off', ...extra })).not.toThrow();
    }
  });
});
