/**
 * API keys (MCP_API_KEYS, issue 27 §1) over real loopback HTTP, configured as an operator would: a key is accepted as
 * `Authorization: Bearer <key>` and becomes the principal of kind `api-key` named by its line, with its scopes; a key of the right
 * shape but a wrong value, a revoked one (its line removed) and no key at all get 401; and everything per caller
 * (scopes, rate limits, conversations, tasks, sessions) follows the key as it follows a verified token.
 */

import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { TASKS_EXTENSION } from '../../lib/protocol/tasks.js';
import { bearer, keyLine, mintTestKey, startKeyServer } from '../support/api-keys.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { challengeOf } from '../support/protected-app.js';
import { post, postModern } from '../support/rpc.js';
import type { TestServer } from '../support/server.js';

const LEGACY = { 'mcp-protocol-version': '2025-11-25' };
const CI = mintTestKey();
const LAPTOP = mintTestKey();
const GUEST = mintTestKey();
const LINES = {
  ci: keyLine('ci', CI, 'scopes=agents:chat,admin'),
  laptop: keyLine('laptop', LAPTOP, 'scopes=agents:chat'),
  guest: keyLine('guest', GUEST),
};
const KEYS_ENV = { MCP_API_KEYS: Object.values(LINES).join('\n'), AUTH_SCOPES: 'agents:chat' };

const call = (url: string, name: string, headers: Record<string, string> = {}, args: Record<string, unknown> = {}) =>
  post(url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }, { ...LEGACY, ...headers });
const resultOf = async (response: Response | Promise<Response>) => (await (await response).json()).result;
const whoami = async (url: string, key: string) => JSON.parse((await resultOf(call(url, 'whoami', bearer(key)))).content[0].text);

let server: TestServer;
beforeAll(async () => {
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  server = await startKeyServer(KEYS_ENV);
});
afterAll(async () => {
  await server?.close();
  vi.restoreAllMocks();
});

describe('keys alone (MCP_API_KEYS without AUTH_ISSUER)', () => {
  test('a key reaches the tools as its principal, of kind api-key and named by its line, holding its line\'s scopes', async () => {
    expect(await whoami(server.mcpUrl, CI)).toEqual({ kind: 'api-key', subject: 'ci', scopes: ['agents:chat', 'admin'] });
    expect(await whoami(server.mcpUrl, LAPTOP)).toEqual({ kind: 'api-key', subject: 'laptop', scopes: ['agents:chat'] });
  });

  test('the modern wire takes the same key', async () => {
    const response = await postModern(server.mcpUrl, 1, 'tools/call', { name: 'whoami', arguments: {} }, { headers: bearer(CI) });
    expect(response.status).toBe(200);
    expect(JSON.parse((await response.json()).result.content[0].text).subject).toBe('ci');
  });

  test('no header gets 401 with a bare Bearer challenge: no authorization server, so no metadata to point to', async () => {
    const response = await call(server.mcpUrl, 'whoami');
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect((await response.json()).error.message).toBe('Authorization required: send an API key as Authorization: Bearer <key>.');
  });

  test.each([
    ['a key of the right shape but a wrong value', () => mintTestKey()],
    ['a real key with one character changed', () => `${CI.slice(0, -1)}${CI.endsWith('A') ? 'B' : 'A'}`],
    ['a real key with more after it', () => `${CI}A`],
    ['the prefix alone', () => 'agentmcp_'],
  ])('%s gets 401 invalid_token, "The API key is not valid."', async (_name, key) => {
    const response = await call(server.mcpUrl, 'whoami', bearer(key()));
    expect(response.status).toBe(401);
    expect(challengeOf(response)).toEqual({ scheme: 'Bearer', error: 'invalid_token', error_description: 'The API key is not valid.' });
  });

  test('a JWT gets 401: this server takes only keys', async () => {
    const { privateKey } = await jose.generateKeyPair('ES256');
    const jwt = await new jose.SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
    const response = await call(server.mcpUrl, 'whoami', bearer(jwt));
    expect(response.status).toBe(401);
    expect(challengeOf(response).error_description).toBe('This server accepts only API keys.');
  });

  test('a key in the URL is refused (400), as a token is: keys go only in the header', async () => {
    const response = await call(`${server.mcpUrl}?access_token=${CI}`, 'whoami', bearer(CI));
    expect(response.status).toBe(400);
  });

  test('revoked by removing its line: the key gets 401, the others still work', async () => {
    const revoked = await startKeyServer({ ...KEYS_ENV, MCP_API_KEYS: [LINES.laptop, LINES.guest].join('\n') });
    try {
      const response = await call(revoked.mcpUrl, 'whoami', bearer(CI));
      expect(response.status).toBe(401);
      expect(challengeOf(response).error_description).toBe('The API key is not valid.');
      expect((await whoami(revoked.mcpUrl, LAPTOP)).subject).toBe('laptop');
    } finally {
      await revoked.close();
    }
  });

  test('a line may be a comment; two lines of one name (a key being rotated) are one principal', async () => {
    const next = mintTestKey();
    const rotating = await startKeyServer({
      ...KEYS_ENV, MCP_API_KEYS: `# ci, old and new\n${LINES.ci}\n${keyLine('ci', next, 'scopes=agents:chat,admin')}`,
    });
    try {
      const principal = { kind: 'api-key', subject: 'ci', scopes: ['agents:chat', 'admin'] };
      expect(await whoami(rotating.mcpUrl, CI)).toEqual(principal);
      expect(await whoami(rotating.mcpUrl, next)).toEqual(principal);
    } finally {
      await rotating.close();
    }
  });
});

describe('scopes follow the key', () => {
  test('a key without the default scope (AUTH_SCOPES) does not see the tools that need it', async () => {
    const { tools } = await resultOf(post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...LEGACY, ...bearer(GUEST) }));
    expect(tools.map((t: { name: string }) => t.name)).not.toContain('whoami');
    expect((await call(server.mcpUrl, 'whoami', bearer(GUEST))).status).toBe(403);
  });

  test('a tool naming its own scope: 403 insufficient_scope for a key without it (no metadata named), 200 for one with it', async () => {
    const refused = await call(server.mcpUrl, 'admin_only', bearer(LAPTOP));
    expect(refused.status).toBe(403);
    expect(challengeOf(refused)).toMatchObject({ error: 'insufficient_scope', scope: 'admin agents:chat' });
    expect(challengeOf(refused)).not.toHaveProperty('resource_metadata');
    expect((await call(server.mcpUrl, 'admin_only', bearer(CI))).status).toBe(200);
  });
});

describe('rate limits follow the key', () => {
  const BURST = mintTestKey();
  const STEADY = mintTestKey();
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startKeyServer({
      MCP_API_KEYS: [keyLine('burst', BURST, 'rate=2/1m'), keyLine('steady', STEADY)].join('\n'),
      RATE_LIMIT_PRINCIPAL: '4/1m',
    });
  });
  afterAll(() => limited?.close());

  test('a key\'s own rate= replaces RATE_LIMIT_PRINCIPAL for it: its third request in the window is 429, "for this API key"', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(limited.mcpUrl, 'whoami', bearer(BURST))).status);
    expect(statuses).toEqual([200, 200, 429]);
    const refused = await call(limited.mcpUrl, 'whoami', bearer(BURST));
    expect(refused.headers.get('ratelimit-policy')).toBe('"key";q=2;w=60');
    expect((await refused.json()).error.message).toContain('at most 2 requests for this API key every minute');
  });

  test('a key without rate= is counted by RATE_LIMIT_PRINCIPAL, on its own: another key\'s use costs it nothing', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await call(limited.mcpUrl, 'whoami', bearer(STEADY))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });
});

describe('state follows the key', () => {
  test('a conversation started with one key cannot be continued with another', async () => {
    const chat = (key: string, args: Record<string, unknown>) => resultOf(call(server.mcpUrl, 'chat_with_agent', bearer(key), args));
    const first = await chat(CI, { message: 'hello from ci' });
    const { session_id } = first.structuredContent;
    const stranger = await chat(LAPTOP, { message: 'let me in', session_id });
    expect(stranger.isError).toBe(true);
    expect(stranger.content[0].text).toContain('not a conversation this server started for you');
    expect((await chat(CI, { message: 'ci again', session_id })).isError).toBeFalsy();
  });

  test('a task made with one key is an unknown task to another, and its own to follow', async () => {
    const withTasks = { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } };
    const created = (await (await postModern(server.mcpUrl, 1, 'tools/call', { name: 'slow', arguments: { ms: 200 } }, { ...withTasks, headers: bearer(CI) })).json()).result;
    expect(created).toMatchObject({ resultType: 'task' });
    const get = (key: string) => postModern(server.mcpUrl, 2, 'tasks/get', { taskId: created.taskId }, { ...withTasks, headers: { ...bearer(key), 'mcp-name': created.taskId } });
    expect((await (await get(LAPTOP)).json()).error).toMatchObject({ code: -32602 });
    expect((await (await get(CI)).json()).result.taskId).toBe(created.taskId);
  });

  test('a session the server issued to one key is not another key\'s (404)', async () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const opened = await post(server.mcpUrl, initialize, bearer(CI));
    const session = { 'mcp-session-id': opened.headers.get('mcp-session-id')! };
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    expect((await post(server.mcpUrl, ping, { ...LEGACY, ...session, ...bearer(LAPTOP) })).status).toBe(404);
    expect((await post(server.mcpUrl, ping, { ...LEGACY, ...session, ...bearer(CI) })).status).toBe(200);
  });
});

describe('keys beside OAuth (MCP_API_KEYS and AUTH_ISSUER)', () => {
  const AUDIENCE = 'https://mcp.example.com/mcp';
  let issuer: TestIssuer;
  let both: TestServer;
  const now = () => Math.floor(Date.now() / 1000);
  const jwtFor = (sub: string) => issuer.mint({ iss: issuer.issuer, aud: AUDIENCE, sub, scope: 'agents:chat', iat: now(), exp: now() + 300 });
  beforeAll(async () => {
    issuer = await startIssuer();
    both = await startKeyServer({ ...KEYS_ENV, AUTH_ISSUER: issuer.issuer, AUTH_AUDIENCE: AUDIENCE });
  });
  afterAll(async () => {
    await both?.close();
    await issuer?.close();
  });

  test('a bearer with the key prefix is a key and anything else a JWT: both reach the tools as their principals', async () => {
    expect(await whoami(both.mcpUrl, CI)).toMatchObject({ kind: 'api-key', subject: 'ci' });
    expect(await whoami(both.mcpUrl, await jwtFor('alice'))).toMatchObject({ kind: 'issuer', subject: 'alice' });
  });

  test('a wrong key is refused as a key, without asking the issuer anything', async () => {
    const asked = issuer.served.requests;
    const response = await call(both.mcpUrl, 'whoami', bearer(mintTestKey()));
    expect(response.status).toBe(401);
    expect(challengeOf(response).error_description).toBe('The API key is not valid.');
    expect(issuer.served.requests).toBe(asked);
  });

  test('no header gets the OAuth challenge, so clients that sign in still can', async () => {
    const response = await call(both.mcpUrl, 'whoami');
    expect(response.status).toBe(401);
    expect(challengeOf(response).resource_metadata).toBe(`${both.url}/mcp/oauth-protected-resource`);
  });

  test('a JWT whose sub claims a key\'s principal (key:ci) is refused: it cannot reach that key\'s state', async () => {
    const response = await call(both.mcpUrl, 'whoami', bearer(await jwtFor('key:ci')));
    expect(response.status).toBe(401);
    expect(challengeOf(response).error_description).toBe('The token\'s sub claim names an API key\'s principal.');
  });
});
