/**
 * mcp-remote (npm `mcp-remote`, a devDependency), the stdio-to-HTTP bridge that Claude Desktop and other
 * stdio-only clients use for remote servers, against the protected app and the development authorization
 * server. A stdio MCP client (the official SDK's) drives it as a desktop app would; mcp-remote reads our 401
 * challenge, registers itself (authorization_code and refresh_token), sends the browser to sign in, takes the
 * code on its callback listener at http://localhost:<port>/oauth/callback, and relays the tool calls. With an API key,
 * `--header "Authorization: Bearer <key>"` carries it on every request and no sign-in happens.
 */

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { bearer, keyLine, mintTestKey, startKeyServer } from '../support/api-keys.js';
import { startAuthzStack, type AuthzStack } from '../support/authz-stack.js';
import { BYPASS_HEADER, clientEnv, scratchDir, startProtectedStack, type ProtectedStack } from '../support/client-harness.js';
import { connectThroughMcpRemote, PROXY, RUN_MS } from '../support/mcp-remote.js';
import type { TestServer } from '../support/server.js';

describe('mcp-remote signs in with OAuth against the development authorization server', () => {
  let stack: ProtectedStack;
  const config = scratchDir('mcp-remote');
  beforeAll(async () => { stack = await startProtectedStack(); });
  afterAll(async () => {
    await stack?.close();
    config.remove();
  });

  test('a stdio client through mcp-remote is signed in through the browser and calls a tool as alice', async () => {
    const { client, close, authorizationUrl, landed } = await connectThroughMcpRemote(stack.mcpUrl, [], config.path);
    try {
      expect(authorizationUrl.origin).toBe(stack.issuer);
      expect(authorizationUrl.searchParams.get('resource')).toBe(stack.mcpUrl);
      expect(landed.status).toBe(200);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ subject: 'alice' });
    } finally {
      await close();
    }
  }, 120_000);
});

describe('mcp-remote signs in through the built-in authorization server', () => {
  let stack: AuthzStack;
  const config = scratchDir('mcp-remote');
  beforeAll(async () => { stack = await startAuthzStack(); }, 30_000);
  afterAll(async () => {
    await stack?.close();
    config.remove();
  });

  test('a stdio client through mcp-remote passes the consent page and the provider, lists the tools and calls one as oidc:alice', async () => {
    const { client, close, authorizationUrl, landed } = await connectThroughMcpRemote(stack.mcpUrl, [], config.path);
    try {
      expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(`${stack.origin}/oauth/authorize`);
      expect(landed.status).toBe(200);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ subject: 'oidc:alice' });
    } finally {
      await close();
    }
  }, 120_000);
});

describe('mcp-remote against a preview behind Vercel Deployment Protection', () => {
  const secret = 'bypass-secret-for-tests';
  let stack: ProtectedStack;
  const config = scratchDir('mcp-remote');
  beforeAll(async () => { stack = await startProtectedStack({ bypassSecret: secret }); });
  afterAll(async () => {
    await stack?.close();
    config.remove();
  });

  // mcp-remote's own first probe of our metadata goes without the header and is refused; the discovery the
  // SDK runs inside its transport carries the header, so the sign-in still completes.
  test('with --header carrying the bypass secret, the sign-in completes and a tool call succeeds', async () => {
    const { client, close } = await connectThroughMcpRemote(stack.mcpUrl, ['--header', `${BYPASS_HEADER}: ${secret}`], config.path);
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ subject: 'alice' });
    } finally {
      await close();
    }
  }, 120_000);
});

describe('mcp-remote with an API key in --header', () => {
  const key = mintTestKey();
  let server: TestServer;
  const config = scratchDir('mcp-remote');
  beforeAll(async () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    server = await startKeyServer({ MCP_API_KEYS: keyLine('desktop', key, 'scopes=agents:chat'), AUTH_SCOPES: 'agents:chat' });
  });
  afterAll(async () => {
    await server?.close();
    config.remove();
    vi.restoreAllMocks();
  });

  test('a stdio client through mcp-remote lists and calls a tool as the API key named desktop, with no sign-in', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [PROXY, server.mcpUrl, '--header', `authorization: ${bearer(key).authorization}`],
      env: clientEnv(config.path, { MCP_REMOTE_CONFIG_DIR: config.path }) as Record<string, string>,
      stderr: 'pipe',
    });
    let log = '';
    transport.stderr!.on('data', (chunk) => { log += chunk; });
    const client = new Client({ name: 'desktop-app', version: '1.0.0' });
    try {
      await client.connect(transport, { timeout: RUN_MS });
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('whoami');
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual({ kind: 'api-key', subject: 'desktop', scopes: ['agents:chat'] });
      expect(log).not.toContain('authorize this client');
    } finally {
      const pid = transport.pid;
      await client.close();
      if (pid !== null) try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
    }
  }, 120_000);
});
