/**
 * `npm run key -- create` (scripts/key.ts) as an operator runs it: it prints a new key once and the MCP_API_KEYS line
 * that configures it, the line holds only the key's hash, and the server started with that line accepts that key.
 */

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { readApiKeys } from '../../lib/auth/api-keys.js';
import { bearer, startKeyServer } from '../support/api-keys.js';
import { post } from '../support/rpc.js';
import type { TestServer } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `npm run key -- <args>`, as the package script runs it. */
function key(...args: string[]) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/key.ts', ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The key and the line in what `create` printed. */
function printed(stdout: string) {
  return {
    key: /^ {2}(agentmcp_\S+)$/m.exec(stdout)?.[1],
    line: /^ {2}(\S+ sha256=.*)$/m.exec(stdout)?.[1],
  };
}

const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  vi.restoreAllMocks();
});

describe('npm run key -- create', () => {
  test('prints a key of the documented shape once and its line: the name, the key\'s SHA-256, the scopes and the rate', () => {
    const run = key('create', '--name', 'ci', '--scopes', 'agents:chat,docs:read', '--rate', '60/1m');
    expect(run.code, run.stderr).toBe(0);
    const { key: minted, line } = printed(run.stdout);
    expect(minted).toMatch(/^agentmcp_[A-Za-z0-9_-]{43}$/);
    expect(line).toMatch(/^ci sha256=[0-9a-f]{64} scopes=agents:chat,docs:read rate=60\/1m$/);
    expect(line).not.toContain(minted!.slice('agentmcp_'.length));
    expect(run.stdout.split(minted!).length - 1).toBe(2); // the key, and the header a client sends; nowhere else
  });

  test('--tokens gives the key a token budget of its own: tokens= in the line, read back by the server\'s parser', () => {
    const run = key('create', '--name', 'ci', '--rate', '60/1m', '--tokens', '100000/1d');
    expect(run.code, run.stderr).toBe(0);
    const { line } = printed(run.stdout);
    expect(line).toMatch(/^ci sha256=[0-9a-f]{64} rate=60\/1m tokens=100000\/1d$/);
    expect([...readApiKeys({ MCP_API_KEYS: line! })!.tokens.values()]).toEqual([{ limit: 100000, windowMs: 86_400_000, text: '100000/1d' }]);
  });

  test('every run mints a new key', () => {
    const [a, b] = [key('create', '--name', 'ci'), key('create', '--name', 'ci')].map((run) => printed(run.stdout).key);
    expect(a).not.toBe(b);
  });

  test('the server started with the printed line accepts the printed key, as a principal of kind api-key named by the line, with its scopes', async () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const { key: minted, line } = printed(key('create', '--name', 'laptop', '--scopes', 'agents:chat').stdout);
    const server = await startKeyServer({ MCP_API_KEYS: line!, AUTH_SCOPES: 'agents:chat' });
    servers.push(server);
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
    const response = await post(server.mcpUrl, call, { 'mcp-protocol-version': '2025-11-25', ...bearer(minted!) });
    expect(JSON.parse((await response.json()).result.content[0].text)).toEqual({ kind: 'api-key', subject: 'laptop', scopes: ['agents:chat'] });
  });

  test.each([
    ['no command', [], 'the command is "create"'],
    ['no name', ['create'], '--name is required'],
    ['a name the line cannot hold', ['create', '--name', 'c i'], '--name must be 1-64 letters'],
    ['a name that looks like a key', ['create', '--name', 'agentmcp_ci'], '--name must not hold "agentmcp_"'],
    ['a scope with a quote', ['create', '--name', 'ci', '--scopes', 'a,"b"'], '--scopes: ""b"" is not a scope'],
    ['a bad rate', ['create', '--name', 'ci', '--rate', 'lots'], '--rate must look like 60/1m'],
    ['a bad token budget', ['create', '--name', 'ci', '--tokens', '0/1d'], '--tokens must look like 100000/1d'],
    ['an unknown option', ['create', '--name', 'ci', '--scope', 'a'], "Unknown option '--scope'"],
  ])('%s exits 1 naming the problem, and prints no key', (_name, args, message) => {
    const run = key(...args);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.stdout).not.toContain('agentmcp_');
  });

  test.each([[['--help']], [['-h']], [['help']], [['create', '--help']]])('%j prints the usage and each option, exits 0, and mints no key', (args) => {
    const run = key(...args);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^usage: npm run key -- create --name <name>/);
    for (const option of ['--name', '--scopes', '--rate', '--tokens']) expect(run.stdout).toContain(`\n  ${option} `);
    expect(run.stdout).not.toContain('agentmcp_');
    expect(run.stderr).toBe('');
  });
});
