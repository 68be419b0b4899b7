/**
 * The real MCP Inspector CLI (npm `@modelcontextprotocol/inspector`, pinned in scripts/npm-cache.mjs, on the
 * Node 22 it needs) against the protected app and the development authorization server: it reads our 401
 * challenge and metadata, registers itself dynamically (asking for the refresh_token grant), sends the browser
 * to sign in, receives the code on its own callback listener and calls a tool with the token.
 * With an API key, its `--header "Authorization: Bearer <key>"` is all it needs: no discovery, no sign-in.
 * The Inspector is installed into .cache/ on first use (scripts/npm-cache.mjs says why it is no devDependency).
 */

import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { ensureInspector, ensureNode22 } from '../../scripts/npm-cache.mjs';
import { keyLine, mintTestKey, startKeyServer } from '../support/api-keys.js';
import { completeInBrowser, followToRedirect } from '../support/browser-leg.js';
import { startAuthzStack, type AuthzStack } from '../support/authz-stack.js';
import {
  BYPASS_HEADER, clientEnv, freePort, isMetadataRequest, scratchDir, startClient, startProtectedStack, type ProtectedStack,
} from '../support/client-harness.js';
import type { TestServer } from '../support/server.js';

const MCP_REMOTE = createRequire(import.meta.url).resolve('mcp-remote/dist/proxy.js');
const INSTALL_MS = 240_000;
const RUN_MS = 60_000;
let node22: string;
let inspector: string;

beforeAll(() => {
  node22 = ensureNode22();
  inspector = ensureInspector();
}, INSTALL_MS);

/** One CLI run that needs a sign-in: plays the browser when the CLI asks, returns its exit code and output. */
async function runSignedIn(mcpUrl: string, args: string[]) {
  const callback = `http://127.0.0.1:${await freePort()}/oauth/callback`;
  const home = scratchDir('inspector-home');
  // No TTY here: MCP_AUTO_OPEN_ENABLED=true is the Inspector's switch for an interactive sign-in without one.
  const cli = startClient(node22, [inspector, '--cli', mcpUrl, '--format', 'json', '--callback-url', callback, ...args],
    clientEnv(home.path, { MCP_AUTO_OPEN_ENABLED: 'true', MCP_INSPECTOR_SECRET_STORE: 'memory' }));
  try {
    const [, authorizationUrl] = await cli.waitForOutput(/navigate to: (\S+)/, RUN_MS);
    const asked = new URL(authorizationUrl!);
    const landed = await completeInBrowser(asked, callback);
    const code = await cli.exited(RUN_MS);
    return { code, asked, landed, ...cli.output() };
  } finally {
    cli.kill();
    home.remove();
  }
}

describe('the MCP Inspector CLI signs in with OAuth against the development authorization server', () => {
  let stack: ProtectedStack;
  beforeAll(async () => { stack = await startProtectedStack(); });
  afterAll(() => stack?.close());

  test('it registers itself (authorization_code and refresh_token), signs in through the browser and calls a tool as alice', async () => {
    const run = await runSignedIn(stack.mcpUrl, ['--method', 'tools/call', '--tool-name', 'whoami']);
    expect(run.asked.origin).toBe(stack.issuer);
    expect(run.asked.searchParams.get('resource')).toBe(stack.mcpUrl);
    expect(run.asked.searchParams.get('client_id')).toEqual(expect.any(String));
    expect(run.landed.status).toBe(200);
    expect(run.code, run.stderr).toBe(0);
    const text = (JSON.parse(run.stdout) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text;
    expect(JSON.parse(text)).toMatchObject({ subject: 'alice', scopes: ['agents:chat'] });
  }, INSTALL_MS);

  test('tools/list after the sign-in shows the tools the token may call', async () => {
    const run = await runSignedIn(stack.mcpUrl, ['--method', 'tools/list']);
    expect(run.code, run.stderr).toBe(0);
    const tools = (JSON.parse(run.stdout) as { result: { tools: Array<{ name: string }> } }).result.tools;
    expect(tools.map((t) => t.name)).toEqual(['whoami']);
  }, INSTALL_MS);
});

describe('the MCP Inspector CLI signs in through the built-in authorization server', () => {
  let stack: AuthzStack;
  beforeAll(async () => { stack = await startAuthzStack(); }, 30_000);
  afterAll(() => stack?.close());

  test('it finds the server at the deployment\'s origin, registers itself, passes the consent page and the provider, and calls a tool', async () => {
    const run = await runSignedIn(stack.mcpUrl, ['--method', 'tools/call', '--tool-name', 'whoami']);
    expect(`${run.asked.origin}${run.asked.pathname}`).toBe(`${stack.origin}/oauth/authorize`);
    expect(run.asked.searchParams.get('resource')).toBe(stack.mcpUrl);
    expect(run.landed.status).toBe(200);
    expect(run.code, run.stderr).toBe(0);
    const text = (JSON.parse(run.stdout) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text;
    expect(JSON.parse(text)).toMatchObject({ subject: 'oidc:alice', scopes: ['agents:chat'] });
  }, INSTALL_MS);
});

describe('the MCP Inspector CLI against a preview behind Vercel Deployment Protection', () => {
  const secret = 'bypass-secret-for-tests';
  let stack: ProtectedStack;
  beforeAll(async () => { stack = await startProtectedStack({ bypassSecret: secret }); });
  afterAll(() => stack?.close());

  test('its --header reaches MCP requests but not OAuth discovery, so the gate refuses the metadata request and sign-in fails', async () => {
    const home = scratchDir('inspector-home');
    const cli = startClient(node22, [inspector, '--cli', stack.mcpUrl, '--format', 'json', '--callback-url', `http://127.0.0.1:${await freePort()}/oauth/callback`,
      '--method', 'tools/list', '--header', `${BYPASS_HEADER}: ${secret}`],
    clientEnv(home.path, { MCP_AUTO_OPEN_ENABLED: 'true', MCP_INSPECTOR_SECRET_STORE: 'memory' }));
    try {
      expect(await cli.exited(RUN_MS)).not.toBe(0);
    } finally {
      cli.kill();
      home.remove();
    }
    // The MCP POST got through the gate (its 401 is ours, with the challenge); the metadata request did not.
    expect(stack.refused.some(isMetadataRequest)).toBe(true);
    expect(stack.refused).not.toContain('POST /mcp');
    expect(cli.output().stdout + cli.output().stderr).not.toContain('navigate to:');
  }, INSTALL_MS);

  test('through mcp-remote as a stdio server, whose OAuth discovery carries the header, it signs in and calls a tool', async () => {
    const port = await freePort();
    const redirect = `http://localhost:${port}/oauth/callback`;
    const home = scratchDir('inspector-home');
    // The Inspector runs `node <mcp-remote> <url> <port> --header …` as a stdio server and shows its stderr.
    const cli = startClient(node22, [inspector, '--cli', '--format', 'json', '--method', 'tools/call', '--tool-name', 'whoami', '--',
      process.execPath, MCP_REMOTE, stack.mcpUrl, String(port), '--header', `${BYPASS_HEADER}: ${secret}`],
    clientEnv(home.path, { MCP_INSPECTOR_SECRET_STORE: 'memory', MCP_REMOTE_CONFIG_DIR: home.path }));
    try {
      const [, authorizationUrl] = await cli.waitForOutput(/authorize this client by visiting:\s+(\S+)/, RUN_MS);
      const callback = await followToRedirect(authorizationUrl!, redirect);
      await cli.waitForOutput(/Waiting for authorization/, RUN_MS); // mcp-remote's listener is up
      expect((await fetch(callback)).status).toBe(200);
      expect(await cli.exited(RUN_MS), cli.output().stderr).toBe(0);
      expect(cli.output().stdout).toContain('alice');
    } finally {
      cli.kill();
      home.remove();
    }
  }, INSTALL_MS);
});

describe('the MCP Inspector CLI with an API key in --header', () => {
  const key = mintTestKey();
  let server: TestServer;
  beforeAll(async () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    server = await startKeyServer({ MCP_API_KEYS: keyLine('inspector', key, 'scopes=agents:chat'), AUTH_SCOPES: 'agents:chat' });
  });
  afterAll(async () => {
    await server?.close();
    vi.restoreAllMocks();
  });

  /** One CLI run with `headers`; its exit code and output. */
  async function run(args: string[], headers: string[]) {
    const home = scratchDir('inspector-home');
    const cli = startClient(node22, [inspector, '--cli', server.mcpUrl, '--format', 'json', ...headers.flatMap((h) => ['--header', h]), ...args],
      clientEnv(home.path, { MCP_INSPECTOR_SECRET_STORE: 'memory' }));
    try {
      return { code: await cli.exited(RUN_MS), ...cli.output() };
    } finally {
      cli.kill();
      home.remove();
    }
  }

  test('it lists and calls a tool as the API key named inspector, with no sign-in', async () => {
    const listed = await run(['--method', 'tools/list'], [`Authorization: Bearer ${key}`]);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name)).toContain('whoami');
    const called = await run(['--method', 'tools/call', '--tool-name', 'whoami'], [`Authorization: Bearer ${key}`]);
    expect(called.code, called.stderr).toBe(0);
    const text = (JSON.parse(called.stdout) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text;
    expect(JSON.parse(text)).toEqual({ kind: 'api-key', subject: 'inspector', scopes: ['agents:chat'] });
    expect(called.stdout + called.stderr).not.toContain('navigate to:');
  }, INSTALL_MS);

  test('with a wrong key it fails, and starts no sign-in (there is no authorization server to go to)', async () => {
    const refused = await run(['--method', 'tools/list'], [`Authorization: Bearer ${mintTestKey()}`]);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).not.toContain('navigate to:');
  }, INSTALL_MS);
});
