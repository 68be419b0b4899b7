/**
 * Who may see the usage page (docs/observability.md "The usage page"), over real HTTP on the local server: nobody by
 * default on a deployment; an API key with the scope usage:read, or a principal named in USAGE_ADMINS signed in
 * through any mode; npm start opens it to loopback alone. A caller without the right gets 401/403 with the usual
 * challenge and no number, on the page and its JSON alike.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { readUsageAdmins } from '../../../lib/usage/page/access.js';
import { readApiKeys } from '../../../lib/auth/api-keys.js';
import { isLoopbackAddress } from '../../../lib/usage/page/handler.js';
import { createUsageFunction } from '../../../lib/usage/page/function.js';
import { startLocalServer } from '../../../scripts/local-server.js';
import { closedPort } from '../../support/upstash-commands.js';
import { bearer, keyLine, mintTestKey } from '../../support/api-keys.js';
import { startIssuer, type TestIssuer } from '../../support/issuer.js';
import { challengeOf } from '../../support/protected-app.js';
import { POST_HEADERS } from '../../support/server.js';
import { startUsageServer, type UsageServer } from '../../support/usage-server.js';

const PATHS = ['/usage', '/usage.json', '/usage?window=hour', '/usage.json?window=month'];
const admin = mintTestKey();
const named = mintTestKey();
const plain = mintTestKey();
const KEYS = [keyLine('admin', admin, 'scopes=usage:read'), keyLine('named', named), keyLine('plain', plain, 'scopes=agents:chat')].join('\n');

/** One real call through /mcp, so that the store holds numbers a refused caller must not see. */
async function chat(server: UsageServer, headers: Record<string, string> = {}): Promise<void> {
  const response = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: { ...POST_HEADERS, 'mcp-protocol-version': '2025-11-25', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message: 'count me' } } }),
  });
  expect(response.status).toBe(200);
  await response.text();
}

/** A refusal carries a JSON-RPC error and nothing of the view. */
async function expectNoData(response: Response): Promise<void> {
  const body = await response.text();
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(Object.keys(JSON.parse(body))).toEqual(['jsonrpc', 'id', 'error']);
  expect(body).not.toMatch(/totals|series|topCallers|Usage/);
}

describe('a deployment with API keys (MCP_API_KEYS) and USAGE_ADMINS=key:named', () => {
  let server: UsageServer;
  beforeAll(async () => {
    server = await startUsageServer({ MCP_API_KEYS: KEYS, USAGE_ADMINS: 'key:named' });
    await chat(server, bearer(plain));
  });
  afterAll(() => server?.close());

  test('without a token: 401 with the Bearer challenge, and no data', async () => {
    for (const path of PATHS) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(401);
      expect(challengeOf(response).scheme).toBe('Bearer');
      await expectNoData(response);
    }
  });

  test('a key that is not valid: 401 invalid_token, and no data', async () => {
    const response = await fetch(`${server.url}/usage.json`, { headers: bearer(mintTestKey()) });
    expect(response.status).toBe(401);
    expect(challengeOf(response).error).toBe('invalid_token');
    await expectNoData(response);
  });

  test('a key without usage:read and not named: 403 insufficient_scope naming usage:read, and no data', async () => {
    for (const path of PATHS) {
      const response = await fetch(`${server.url}${path}`, { headers: bearer(plain) });
      expect(response.status, path).toBe(403);
      expect(challengeOf(response)).toMatchObject({ error: 'insufficient_scope', scope: 'usage:read agents:chat' });
      await expectNoData(response);
    }
  });

  test('a key with usage:read sees the page and the JSON', async () => {
    const page = await fetch(`${server.url}/usage`, { headers: bearer(admin) });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<h2>Totals</h2>');
    const json = await fetch(`${server.url}/usage.json?window=hour`, { headers: bearer(admin) });
    expect(json.status).toBe(200);
    expect((await json.json()).window).toBe('hour');
  });

  test('a key named in USAGE_ADMINS sees it without the scope', async () => {
    const response = await fetch(`${server.url}/usage.json`, { headers: bearer(named) });
    expect(response.status).toBe(200);
    expect((await response.json()).window).toBe('day');
  });

  test('only GET and HEAD; a window it does not know is a 400 that says which it knows', async () => {
    const post = await fetch(`${server.url}/usage`, { method: 'POST', headers: bearer(admin), body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${server.url}/usage`, { method: 'HEAD', headers: bearer(admin) });
    expect(head.status).toBe(200);
    const week = await fetch(`${server.url}/usage?window=week`, { headers: bearer(admin) });
    expect(week.status).toBe(400);
    expect((await week.json()).error.message).toBe('Bad Request: window must be hour, day, month.');
  });

  test('npm start opens it to loopback without sign-in; the same server for a deployment does not', async () => {
    const local = await startUsageServer({ MCP_API_KEYS: KEYS }, { openOnLoopback: true });
    const deployed = await startUsageServer({ MCP_API_KEYS: KEYS, PUBLIC_URL: 'https://agent.example.test' }, { openOnLoopback: true });
    try {
      expect((await fetch(`${local.url}/usage.json`)).status).toBe(200);
      const html = await (await fetch(`${local.url}/usage`)).text();
      expect(html).toContain('Open without sign-in: npm start serves this page to loopback on this machine only.');
      const refused = await fetch(`${deployed.url}/usage.json`);
      expect(refused.status).toBe(401);
      await expectNoData(refused);
    } finally {
      await Promise.all([local.close(), deployed.close()]);
    }
  });
});

describe('a deployment with no sign-in mode', () => {
  test('answers 404 and no data, on the page and the JSON', async () => {
    const server = await startUsageServer({ PUBLIC_URL: 'https://agent.example.test' });
    try {
      await chat(server);
      for (const path of PATHS) {
        const response = await fetch(`${server.url}${path}`);
        expect(response.status, path).toBe(404);
        await expectNoData(response);
      }
    } finally {
      await server.close();
    }
  });
});

describe('a deployment signing in with tokens from an OAuth issuer (AUTH_ISSUER)', () => {
  const AUDIENCE = 'https://agent.example.test/mcp';
  let issuer: TestIssuer;
  let server: UsageServer;
  const token = (sub: string, scope = 'agents:chat usage:read') =>
    issuer.mint({ iss: issuer.issuer, sub, aud: AUDIENCE, scope, exp: Math.floor(Date.now() / 1000) + 600 });
  beforeAll(async () => {
    issuer = await startIssuer();
    server = await startUsageServer({ AUTH_ISSUER: issuer.issuer, AUTH_JWKS_URL: issuer.jwksUrl, AUTH_AUDIENCE: AUDIENCE, USAGE_ADMINS: 'alice' });
  });
  afterAll(async () => {
    await server?.close();
    await issuer?.close();
  });

  test('the principal named in USAGE_ADMINS sees the page', async () => {
    const response = await fetch(`${server.url}/usage`, { headers: bearer(await token('alice')) });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<h2>Totals</h2>');
  });

  test('another principal gets 403 and no data, even with a token that claims usage:read (a client picks its own scopes)', async () => {
    await chat(server, bearer(await token('mallory')));
    const response = await fetch(`${server.url}/usage.json`, { headers: bearer(await token('mallory')) });
    expect(response.status).toBe(403);
    expect(challengeOf(response).error).toBe('insufficient_scope');
    await expectNoData(response);
  });

  test('without a token: 401 with the challenge naming the protected resource metadata', async () => {
    const response = await fetch(`${server.url}/usage`);
    expect(response.status).toBe(401);
    expect(challengeOf(response).resource_metadata).toMatch(/oauth-protected-resource/);
    await expectNoData(response);
  });
});

describe('USAGE_ADMINS is read at start-up and fails loudly, naming the variable', () => {
  const keys = readApiKeys({ MCP_API_KEYS: KEYS });
  test.each([
    [{ USAGE_ADMINS: 'key:nobody' }, 'USAGE_ADMINS names "key:nobody", but MCP_API_KEYS has no key named "nobody".'],
    [{ USAGE_ADMINS: 'key:bad/name' }, 'USAGE_ADMINS names "key:bad/name", whose key name must be'],
    [{ USAGE_ADMINS: 'x'.repeat(300) }, 'USAGE_ADMINS names a principal longer than 256 characters.'],
  ])('%o', (env, message) => {
    expect(() => readUsageAdmins(env, { modes: 1, apiKeys: keys })).toThrow(message);
  });

  test('set with no sign-in mode on: nobody could ever sign in as an admin', () => {
    expect(() => readUsageAdmins({ USAGE_ADMINS: 'alice' }, { modes: 0 })).toThrow(/^USAGE_ADMINS is set but no sign-in mode is on/);
  });

  test('names separated by commas or white space', () => {
    expect([...readUsageAdmins({ USAGE_ADMINS: ' key:admin, github:1\n oidc:x ' }, { modes: 1, apiKeys: keys })]).toEqual(['key:admin', 'github:1', 'oidc:x']);
  });

  test('npm start stops on it before it listens', async () => {
    await expect(startUsageServer({ MCP_API_KEYS: KEYS, USAGE_ADMINS: 'key:nobody' })).rejects.toThrow(/USAGE_ADMINS/);
  });
});

test('a store that does not answer: 503 with Retry-After and a fixed sentence, the cause in the operator\'s log only', async () => {
  const port = await closedPort();
  const env = { MCP_API_KEYS: KEYS, UPSTASH_REDIS_REST_URL: `http://127.0.0.1:${port}`, UPSTASH_REDIS_REST_TOKEN: 't', MCP_STATE_SECRET: 's'.repeat(32), STORE_TIMEOUT_MS: '500' };
  const server = await startLocalServer({ port: 0, functions: { '/api/usage': createUsageFunction(env) } });
  const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    const response = await fetch(`${server.url}/usage.json`, { headers: bearer(admin) });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    expect((await response.json()).error.message).toBe('The shared store is unavailable; try again shortly.');
    expect(logged.mock.calls.map((c) => String(c[0])).join('\n')).toContain('[agent-mcp] usage page:');
  } finally {
    logged.mockRestore();
    await server.close();
  }
});

test('loopback is the socket address on the loopback interface, IPv4, IPv6 or mapped; nothing else', () => {
  expect(['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'].map(isLoopbackAddress)).toEqual([true, true, true, true]);
  expect(['10.0.0.1', '192.168.1.2', '::', '0.0.0.0', '2001:db8::1', 'localhost', '', undefined].map(isLoopbackAddress)).toEqual(Array(8).fill(false));
});
