/**
 * `npm run dev:signin` (docs/oauth.md "Try it locally"): one command starts the development OpenID provider and
 * agent-mcp with the built-in authorization server pointed at it, and prints the variables, the email to allow and
 * how a real client signs in. Driven here as a reader would: the command as a process, then mcp-remote (the client
 * it names) signing in through agent-mcp's consent page and the provider, to a signed-in tools/list and a call.
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort, scratchDir } from '../support/client-harness.js';
import { connectThroughMcpRemote } from '../support/mcp-remote.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const READY_MS = 60_000;

describe('npm run dev:signin', () => {
  const config = scratchDir('dev-signin');
  let command: ChildProcess;
  let stdout = '';
  let stderr = '';
  let mcpUrl: string;
  let origin: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    mcpUrl = `${origin}/mcp`;
    command = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev-signin.ts'], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), SIGNIN_PROVIDER_PORT: '0', MCP_LOG: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    command.stderr!.on('data', (chunk) => { stderr += chunk; });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`dev:signin said nothing of signing in within ${READY_MS} ms:\n${stdout}\n${stderr}`)), READY_MS);
      command.stdout!.on('data', (chunk) => {
        stdout += chunk;
        if (stdout.includes('Ctrl-C stops')) { clearTimeout(timer); resolve(); }
      });
      command.on('exit', (code) => { clearTimeout(timer); reject(new Error(`dev:signin exited with ${code}:\n${stdout}\n${stderr}`)); });
    });
  }, READY_MS + 5_000);

  afterAll(() => {
    if (command?.exitCode === null) command.kill('SIGKILL');
    config.remove();
  });

  test('prints the variables it set, the email to allow and the clients to sign in with, and no provider warnings', () => {
    const issuer = /AUTH_SERVER_OIDC_ISSUER='(http:\/\/localhost:\d+)'/.exec(stdout)?.[1];
    expect(issuer).toBeDefined();
    expect(stdout).toContain(`a development OpenID provider on ${issuer} (it signs everyone in as alice, alice@example.com`);
    for (const name of ['AUTH_SERVER_KEY', 'AUTH_SERVER_PROVIDER', 'AUTH_SERVER_CLIENT_ID', 'AUTH_SERVER_CLIENT_SECRET']) expect(stdout).toMatch(new RegExp(`^  ${name}='[^']+'$`, 'm'));
    expect(stdout).toContain("  AUTH_SERVER_PROVIDER='oidc'");
    expect(stdout).toContain("  AUTH_SERVER_ALLOW='alice@example.com'");
    expect(stdout).toContain(`agent-mcp ready: ${mcpUrl}`);
    expect(stdout).toContain('auth     OAuth bearer tokens from the built-in authorization server');
    expect(stdout).toContain(`sign in as alice@example.com (AUTH_SERVER_ALLOW)`);
    expect(stdout).toContain(`  npx mcp-remote ${mcpUrl}\n`);
    expect(stdout).toContain(`--cli ${mcpUrl} --method tools/list`);
    expect(stderr).not.toContain('oidc-provider WARNING');
  });

  test('mcp-remote, as printed, signs in through the built-in server and the provider, lists the tools and calls one', async () => {
    const { client, close, authorizationUrl, landed } = await connectThroughMcpRemote(mcpUrl, [], config.path);
    try {
      expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(`${origin}/oauth/authorize`);
      expect(landed.status).toBe(200);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('chat_with_agent');
      const result = await client.callTool({ name: 'chat_with_agent', arguments: { message: 'hello' } });
      expect(result.isError).toBeFalsy();
    } finally {
      await close();
    }
  }, 120_000);

  test('without a token the endpoint challenges, naming its own origin as the authorization server', async () => {
    const response = await fetch(`${origin}/mcp/oauth-protected-resource`);
    expect(await response.json()).toMatchObject({ resource: mcpUrl, authorization_servers: [origin] });
  });

  test('Ctrl-C (SIGINT) stops agent-mcp and the provider with it', async () => {
    const exited = new Promise<number | null>((resolve) => command.on('exit', resolve));
    command.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(fetch(mcpUrl, { method: 'POST' })).rejects.toThrow();
  });
});
