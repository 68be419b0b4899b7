/**
 * `npm start` checks the whole configuration before it listens (real processes): a bad setting exits 1 with one
 * message naming the variable, a taken port says so in one line. Once it listens its first line says where, and a
 * few short lines say what is really served; MCP_LOG=debug adds every setting and bound.
 */

import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../support/free-port.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { newSigningKey } from '../support/signing-key.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const KEY = newSigningKey();
const BUILT_IN = {
  AUTH_SERVER_KEY: KEY, AUTH_SERVER_PROVIDER: 'github', AUTH_SERVER_CLIENT_ID: 'Iv1.x', AUTH_SERVER_CLIENT_SECRET: 's', AUTH_SERVER_ALLOW: 'github:octocat',
};

/** Runs `npm start`'s script until it has said what it serves (then stops it) or exits on its own. */
function start(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/serve.ts'], {
    cwd: ROOT, env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    if (/\n  (\(MCP_LOG=debug.*|concurrent calls: .*)\n/.test(stdout)) child.kill();
  });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('a bad setting stops npm start before it listens, naming the variable', () => {
  test.each([
    ['malformed AGENTS says where the JSON breaks', { AGENTS: '[{"id":"a",}]' }, 'AGENTS must be a JSON array of agent objects: the JSON breaks at position 11 (line 1, column 12)'],
    ['an inlined apiKey suggests apiKeyEnv', { AGENTS: '[{"id":"support","format":"platform","url":"http://x","apiKey":"sk-1"}]' }, 'AGENTS: agent support inlines its key; put the key in its own variable and name it with "apiKeyEnv"'],
    ['apiKeyEnv naming an unset variable', { AGENTS: '[{"id":"a","format":"platform","url":"http://x","apiKeyEnv":"NOT_SET_ANYWHERE"}]' }, 'names apiKeyEnv NOT_SET_ANYWHERE, which is not set'],
    ['an unknown agent field', { AGENTS: '[{"id":"a","format":"platform","url":"http://x","modle":"m"}]' }, 'AGENTS is invalid: agent a (entry 0): modle: is not an agent setting; did you mean "model"?'],
    ['AGENT_URL without AGENT_MODEL', { AGENT_URL: 'http://localhost:11434/v1' }, 'model: openai agents need a model'],
    ['a bad AGENT_FORMAT', { AGENT_URL: 'http://x/v1', AGENT_FORMAT: 'grpc', AGENT_MODEL: 'm' }, 'format: must be one of openai, platform'],
    ['a bad AGENT_TIMEOUT_MS', { AGENT_TIMEOUT_MS: 'soon' }, 'AGENT_TIMEOUT_MS must be a positive integer'],
    ['malformed MCP_MOUNTS', { MCP_MOUNTS: '[{"name":"docs" "url":"http://x"}]' }, 'MCP_MOUNTS must be a JSON array of mount objects: the JSON breaks at position 16'],
    ['a bad RATE_LIMIT_IP', { RATE_LIMIT_IP: 'lots' }, 'RATE_LIMIT_IP'],
    ['a bad PUBLIC_URL', { PUBLIC_URL: 'example.com' }, 'PUBLIC_URL must be an absolute http(s) URL'],
    ['a bad PORT', { PORT: 'eighty' }, 'PORT must be a port number'],
    ['a symmetric AUTH_ALGORITHMS', { AUTH_ISSUER: 'https://auth.example.com', AUTH_ALGORITHMS: 'HS256' }, 'AUTH_ALGORITHMS may list only asymmetric algorithms'],
    ['a bad X402_PAY_TO', { X402_PAY_TO: 'alice' }, 'X402_PAY_TO must be an EVM address'],
    ['an Upstash URL without its token', { UPSTASH_REDIS_REST_URL: 'https://x.upstash.io', MCP_STATE_SECRET: 'x'.repeat(32) }, 'UPSTASH_REDIS_REST_TOKEN must be set when UPSTASH_REDIS_REST_URL is'],
    ['a shared store without MCP_STATE_SECRET', { UPSTASH_REDIS_REST_URL: 'https://x.upstash.io', UPSTASH_REDIS_REST_TOKEN: 't' }, 'MCP_STATE_SECRET must be set when the store is shared'],
    ['a malformed MCP_API_KEYS line, named by its number', { MCP_API_KEYS: `ci sha256=${'0'.repeat(64)}\nlaptop scopes=agents:chat` }, 'MCP_API_KEYS line 2 is not "<name> sha256=<64 hex digits>'],
    ['a bad MCP_MOUNTS_WAIT_MS', { MCP_MOUNTS_WAIT_MS: '-1' }, 'MCP_MOUNTS_WAIT_MS must be a non-negative integer'],
    ['the built-in authorization server without its provider', { AUTH_SERVER_KEY: KEY }, 'AUTH_SERVER_PROVIDER must be set when AUTH_SERVER_KEY is set'],
    ['the built-in authorization server with no one allowed', { ...BUILT_IN, AUTH_SERVER_ALLOW: '' }, 'AUTH_SERVER_ALLOW must list who may sign in'],
    ['USAGE_ADMINS naming a key MCP_API_KEYS does not hold', { MCP_API_KEYS: `ops sha256=${'a'.repeat(64)}`, USAGE_ADMINS: 'key:opz' }, 'USAGE_ADMINS names "key:opz", but MCP_API_KEYS has no key named "opz"'],
    ['USAGE_ADMINS with no sign-in mode on', { USAGE_ADMINS: 'alice' }, 'USAGE_ADMINS is set but no sign-in mode is on'],
  ])('%s', async (_, env, message) => {
    const { code, stdout, stderr } = await start(env);
    expect(code).toBe(1);
    expect(stdout).not.toContain('listening');
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^agent-mcp: configuration error: /);
    expect(lines[0]).toContain(message);
  });
});

describe('an AUTH_ISSUER its authorization server\'s metadata does not name', () => {
  let issuer: TestIssuer;
  beforeAll(async () => { issuer = await startIssuer(); });
  afterAll(() => issuer.close());

  test('stops npm start in one line naming AUTH_ISSUER and the issuer to set, before it listens', async () => {
    const { code, stdout, stderr } = await start({ AUTH_ISSUER: `${issuer.issuer}/` });
    expect(code).toBe(1);
    expect(stdout).not.toContain('ready');
    expect(stderr.trim().split('\n')).toEqual([`agent-mcp: configuration error: AUTH_ISSUER is "${issuer.issuer}/", but the authorization `
      + `server's metadata at ${issuer.issuer}/.well-known/oauth-authorization-server names its issuer "${issuer.issuer}"; set AUTH_ISSUER `
      + 'to exactly that (the token\'s iss must match it too).']);
  });

  test('an issuer that matches starts as before', async () => {
    const { stdout } = await start({ AUTH_ISSUER: issuer.issuer });
    expect(stdout).toContain(issuer.issuer);
  });
});

describe('a port in use', () => {
  let holder: Server;
  let port: number;
  beforeAll(async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, 'localhost', resolve));
    port = (holder.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  test('is one line saying the port is taken and to set PORT, exit 1, no stack', async () => {
    const { code, stderr } = await start({ PORT: String(port) });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(`agent-mcp: port ${port} is taken; set PORT to a free port (PORT=3001 npm start).`);
  });
});

describe('once it listens, it says where first, then a few short lines of what is on', () => {
  test('the first line is where to point a client, and the landing page', async () => {
    const { stdout } = await start({});
    const [first, ...rest] = stdout.trim().split('\n');
    expect(first).toMatch(/^agent-mcp ready: http:\/\/localhost:\d+\/mcp \(landing page http:\/\/localhost:\d+\/\)$/);
    expect(rest.map((line) => /^ {2}(\w+)/.exec(line)?.[1])).toEqual(['agents', 'store', 'auth', 'origins', 'limits', 'usage', undefined]);
    expect(rest.at(-1)).toBe('  (MCP_LOG=debug prints every setting and bound)');
    for (const line of rest) expect(line.length, line).toBeLessThanOrEqual(120);
  });

  test.each([
    ['with no sign-in mode', {}, 'loopback: no sign-in; others: nobody, as no sign-in mode is on'],
    ['with API keys and USAGE_ADMINS', { MCP_API_KEYS: `ops sha256=${'a'.repeat(64)}`, USAGE_ADMINS: 'key:ops' }, 'loopback: no sign-in; others: API keys with the scope usage:read or the 1 principal in USAGE_ADMINS'],
    ['with PUBLIC_URL (not this machine alone: no open loopback)', { PUBLIC_URL: 'https://agent.example.com' }, 'nobody, as no sign-in mode is on'],
  ])('the usage page\'s line %s: where it is and who may read it', async (_, env, who) => {
    const { stdout } = await start(env);
    expect(stdout).toMatch(new RegExp(`\\n {2}usage +http://localhost:\\d+/usage \\(${who.replace(/[()]/g, '\\$&')}\\)\\n`));
  });

  test('MCP_LOG=debug adds every setting and bound, each naming its variable', async () => {
    const { stdout } = await start({ MCP_LOG: 'debug', RATE_LIMIT_IP: '60/1m' });
    expect(stdout).toContain('  limits   rate limits ip 60/1m, principal off; 16 concurrent calls per caller\n');
    expect(stdout).toContain('  rate limits: ip 60/1m, principal off');
    for (const variable of ['MEMORY_STORE_MAX_BYTES', 'MCP_MAX_BODY_BYTES', 'TASK_TTL_MS', 'MCP_MAX_CONCURRENT_CALLS']) {
      expect(stdout).toContain(variable);
    }
    expect(stdout).not.toContain('(MCP_LOG=debug prints');
  });
});

describe('the lines say what is served', () => {
  test('with AGENTS set it lists those agents, not the demo agent (AGENTS replaces the demo agent)', async () => {
    const { stdout } = await start({ AGENTS: '[{"id":"support","format":"platform","url":"https://agents.example.com/chat"}]' });
    expect(stdout).toMatch(/agents +support \(platform\)\n/);
    expect(stdout).not.toMatch(/demo/);
  });

  test('AGENT_URL and AGENTS add up; the URL is shown without credentials', async () => {
    const { stdout } = await start({
      AGENT_URL: 'http://user:pass@localhost:11434/v1?key=k', AGENT_MODEL: 'llama3',
      AGENTS: '[{"id":"support","format":"platform","url":"https://agents.example.com/chat"}]',
    });
    expect(stdout).toMatch(/agents +default \(openai at http:\/\/localhost:11434\/v1\), support \(platform\)\n/);
    expect(stdout).not.toContain('pass');
  });

  test('with nothing set it is the demo agent and loopback origins', async () => {
    const { stdout } = await start({});
    expect(stdout).toMatch(/agents +demo \(the offline demo agent/);
    expect(stdout).toMatch(/origins +loopback only/);
  });

  test('with VERCEL=1 the origins are not loopback-only', async () => {
    const { stdout } = await start({ VERCEL: '1' });
    expect(stdout).toMatch(/origins +any host; browser origins: the origin each request reaches/);
  });

  test('with AUTH_SERVER_KEY the auth line names the built-in authorization server', async () => {
    const { stdout } = await start(BUILT_IN);
    expect(stdout).toMatch(/auth +OAuth bearer tokens from the built-in authorization server at this deployment's origin \(AUTH_SERVER_KEY\)\n/);
  });

  test('with PUBLIC_URL the origins and the public MCP URL name it', async () => {
    const { stdout } = await start({ PUBLIC_URL: 'https://agent.example.com', MCP_ALLOWED_ORIGINS: 'https://app.example.com' });
    expect(stdout).toMatch(/origins +any host; browser origins: https:\/\/agent\.example\.com \+ https:\/\/app\.example\.com\n/);
    expect(stdout).toMatch(/\n {2}public +https:\/\/agent\.example\.com\/mcp\n/);
  });
});

describe('a reader of its output that goes away (npm start | head -1)', () => {
  test('loses the lines, not the server: npm start still answers', async () => {
    const port = await freePort();
    // As `npm start` runs it: the tsx CLI, whose stdout pipe is closed before the server writes its first line.
    const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['scripts/serve.ts'], {
      cwd: ROOT, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    let exited = false;
    child.on('exit', () => { exited = true; });
    try {
      let status = 0;
      for (let i = 0; i < 150 && !exited && status !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = await fetch(`http://127.0.0.1:${port}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        }).then((response) => response.status, () => 0);
      }
      expect(status, stderr).toBe(200);
      expect(exited, stderr).toBe(false);
    } finally {
      child.kill();
    }
  }, 30_000);
});
