/**
 * The health probe (docs/observability.md "Observability"), over real HTTP on the local server with vercel.json's routes: the
 * production handler from the environment, a real redis-server behind the Upstash REST bridge (reached through
 * a proxy the test switches off), a real token issuer that can go down, and a real mounted MCP server.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp } from '../../lib/app.js';
import { SERVER_INFO } from '../../lib/identity.js';
import { startDownstream, type Downstream } from '../support/downstream.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { startRedirector, type Redirector } from '../support/redirector.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';
import { newSigningKey } from '../support/signing-key.js';
import { apiKeyLine } from '../../lib/auth/api-keys.js';
import { startSwitchProxy, type SwitchProxy } from '../support/switch-proxy.js';

let redis: SharedRedis;
let proxy: SwitchProxy;
let issuer: TestIssuer;
let downstream: Downstream;
const servers: TestServer[] = [];

beforeAll(async () => {
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
  [redis, issuer, downstream] = await Promise.all([startSharedRedis(), startIssuer(), startDownstream('notes')]);
  proxy = await startSwitchProxy(redis.bridge.url);
}, 30_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await proxy?.close();
  await redis?.stop();
  await issuer?.close();
  await downstream?.close();
  vi.restoreAllMocks();
});

async function serve(env: Record<string, string>): Promise<TestServer> {
  const server = await startTestServer(createMcpHandler(createDefaultApp(env)));
  servers.push(server);
  return server;
}

const probe = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, headers: response.headers, text: await response.text() };
};

describe('the embedded defaults', () => {
  test('GET /health and /api/health (served by the MCP function) say the version and that the memory store answers', async () => {
    const server = await serve({});
    // The third is what vercel.json's rewrite hands the function when the platform passes the rewritten URL.
    for (const path of ['/health', '/api/health', '/api/mcp?health=1']) {
      const { status, headers, text } = await probe(`${server.url}${path}`);
      expect(status).toBe(200);
      expect(headers.get('content-type')).toBe('application/json');
      expect(headers.get('cache-control')).toBe('no-store');
      expect(JSON.parse(text)).toMatchObject({
        status: 'ok', name: 'agent-mcp', version: SERVER_INFO.version,
        store: { kind: 'memory', ok: true }, auth: null, mounts: [],
      });
    }
  });

  test('MCP_HEALTH_TIMEOUT_MS that is not a number of milliseconds is a configuration error naming it', () => {
    expect(() => createDefaultApp({ MCP_HEALTH_TIMEOUT_MS: '2s' }))
      .toThrow(new TypeError('MCP_HEALTH_TIMEOUT_MS must be a whole number of milliseconds from 1 to 60000, got "2s".'));
  });
});

describe('a shared store, an issuer and a mount', () => {
  let server: TestServer;
  let env: Record<string, string>;
  beforeAll(async () => {
    env = {
      ...redis.bridge.env, UPSTASH_REDIS_REST_URL: proxy.url,
      AUTH_ISSUER: issuer.issuer, AUTH_AUDIENCE: 'https://health.example/mcp', AGENT_API_KEY: 'sk-agent-key-not-for-health',
      MCP_MOUNTS: JSON.stringify([{ name: 'notes', url: downstream.url }]),
      // Far longer than any probe takes on a loaded machine: here a probe that answers must be reported as answering.
      MCP_HEALTH_TIMEOUT_MS: '30000',
    };
    server = await serve(env);
  });

  test('all up: the Upstash store answers a read, the issuer answers, the mount is ready; nothing secret is said', async () => {
    const before = redis.bridge.requests.length;
    const { status, text } = await probe(`${server.url}/api/health`);
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({
      status: 'ok',
      store: { kind: 'upstash', ok: true },
      auth: { mode: 'issuer', issuer: issuer.issuer, ok: true },
      mounts: [{ name: 'notes', state: 'ready' }],
    });
    expect(redis.bridge.requests.length).toBeGreaterThan(before);
    for (const secret of [redis.bridge.token, env.MCP_STATE_SECRET!, 'sk-agent-key-not-for-health', proxy.url, redis.bridge.url, downstream.url]) {
      expect(text).not.toContain(secret);
    }
  });

  test('the store down: 503, status down, store not ok', async () => {
    proxy.setDown(true);
    try {
      const { status, text } = await probe(`${server.url}/health`);
      expect(status).toBe(503);
      expect(JSON.parse(text)).toMatchObject({ status: 'down', store: { kind: 'upstash', ok: false }, auth: { ok: true } });
    } finally {
      proxy.setDown(false);
    }
    expect((await probe(`${server.url}/health`)).status).toBe(200);
  });

  test('a store slower than MCP_HEALTH_TIMEOUT_MS is reported as a timeout, not waited for', async () => {
    const impatient = await serve({ ...env, MCP_HEALTH_TIMEOUT_MS: '1500' });
    redis.bridge.setDelay(10_000);
    try {
      const { status, text } = await probe(`${impatient.url}/health`);
      expect(status).toBe(503);
      expect(JSON.parse(text).store).toMatchObject({ ok: false, error: 'timeout' });
    } finally {
      redis.bridge.setDelay(0);
    }
  });

  test('the issuer down: 503, auth not ok', async () => {
    issuer.setDown(true);
    try {
      const { status, text } = await probe(`${server.url}/health`);
      expect(status).toBe(503);
      expect(JSON.parse(text)).toMatchObject({ status: 'down', store: { ok: true }, auth: { ok: false, error: 'HTTP 503' } });
    } finally {
      issuer.setDown(false);
    }
  });
});

describe('an AUTH_ISSUER its metadata does not name', () => {
  test('the probe is 503, down, and says the issuer does not match, not that it is unavailable', async () => {
    const server = await serve({ AUTH_ISSUER: `${issuer.issuer}/`, AUTH_AUDIENCE: 'https://health.example/mcp' });
    const { status, text } = await probe(`${server.url}/health`);
    expect(status).toBe(503);
    expect(JSON.parse(text)).toMatchObject({ status: 'down', auth: { issuer: `${issuer.issuer}/`, ok: false, error: 'issuer mismatch' } });
  });
});

describe('an issuer whose metadata or key set answers with a redirect', () => {
  let redirector: Redirector;
  beforeAll(async () => {
    redirector = await startRedirector((path) => (path === '/jwks' ? issuer.jwksUrl : `${issuer.issuer}/.well-known/oauth-authorization-server`));
  });
  afterAll(() => redirector?.close());

  test.each([
    ['the metadata (AUTH_ISSUER)', () => ({ AUTH_ISSUER: redirector.url })],
    ['the key set (AUTH_JWKS_URL)', () => ({ AUTH_ISSUER: issuer.issuer, AUTH_JWKS_URL: `${redirector.url}/jwks` })],
  ])('%s: the probe is 503, down, and says redirect: keys are not fetched from where a redirect points', async (_what, env) => {
    const server = await serve({ ...env(), AUTH_AUDIENCE: 'https://health.example/mcp' });
    const { status, text } = await probe(`${server.url}/health`);
    expect(status).toBe(503);
    expect(JSON.parse(text)).toMatchObject({ status: 'down', auth: { ok: false, error: 'redirect' } });
  });
});

describe('a mount that cannot connect', () => {
  test('the probe is 200 but degraded, and names the failed mount', async () => {
    const dead = await startDownstream('dead', 'failing');
    try {
      const server = await serve({ MCP_MOUNTS: JSON.stringify([{ name: 'dead', url: dead.url }]) });
      const { status, text } = await probe(`${server.url}/health`);
      expect(status).toBe(200);
      expect(JSON.parse(text)).toMatchObject({ status: 'degraded', mounts: [{ name: 'dead', state: 'failed' }] });
    } finally {
      await dead.close();
    }
  });
});

describe('auth that has no issuer to probe says which mode is on', () => {
  test('the built-in authorization server (AUTH_SERVER_KEY): auth is on, its keys are configured, nothing is fetched', async () => {
    const server = await serve({ AUTH_SERVER_KEY: newSigningKey(), AUTH_AUDIENCE: 'https://health.example/mcp' });
    const { status, text } = await probe(`${server.url}/health`);
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ status: 'ok', auth: { mode: 'built-in', ok: true } });
  });

  test('API keys alone (MCP_API_KEYS): auth is on, and no key or hash is named', async () => {
    const line = apiKeyLine('ci', 'agentmcp_health-key-not-for-the-probe', ['agents:chat']);
    const server = await serve({ MCP_API_KEYS: line });
    const { status, text } = await probe(`${server.url}/health`);
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ status: 'ok', auth: { mode: 'api-keys', ok: true } });
    expect(text).not.toContain(line.split('sha256=')[1]!.slice(0, 16));
  });

  test('API keys beside an issuer: the issuer is probed, and the keys are said to be accepted too', async () => {
    const line = apiKeyLine('ci', 'agentmcp_health-key-beside-issuer', []);
    const server = await serve({ AUTH_ISSUER: issuer.issuer, AUTH_AUDIENCE: 'https://health.example/mcp', MCP_API_KEYS: line });
    const { text } = await probe(`${server.url}/health`);
    expect(JSON.parse(text)).toMatchObject({ auth: { mode: 'issuer', issuer: issuer.issuer, ok: true, apiKeys: true } });
  });
});
