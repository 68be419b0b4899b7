/**
 * Scopes (MCP authorization §Scope Challenge Handling; 2026-07-28 server/tools: tools/list MAY vary by
 * authorization): every tool needs AUTH_SCOPES unless it names its own; a missing one is an error value from
 * the dispatcher that the HTTP layer turns into 403 with a step-up challenge. In-process principals are held
 * to the same rules as verified tokens.
 */

import { Client } from '@modelcontextprotocol/client';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { INSUFFICIENT_SCOPE } from '../../lib/protocol/errors.js';
import { MemoryStore } from '../../lib/store/memory.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';
import { challengeOf, createProtectedApp, SCOPE, startProtectedServer } from '../support/protected-app.js';
import { post, postModern } from '../support/rpc.js';
import type { TestServer } from '../support/server.js';

let issuer: TestIssuer;
let server: TestServer & { app: ReturnType<typeof createProtectedApp> };

beforeAll(async () => {
  issuer = await startIssuer();
  server = await startProtectedServer({ AUTH_ISSUER: issuer.issuer });
});
afterAll(async () => {
  await server?.close();
  await issuer?.close();
});

const now = () => Math.floor(Date.now() / 1000);
const tokenWith = (scope: string, extra: jose.JWTPayload = {}) =>
  issuer.mint({ iss: issuer.issuer, aud: server.mcpUrl, sub: 'alice', scope, iat: now(), exp: now() + 300, ...extra });
const legacy = async (scope: string, method: string, params: Record<string, unknown> = {}) =>
  post(server.mcpUrl, { jsonrpc: '2.0', id: 7, method, params }, { 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${await tokenWith(scope)}` });
const toolNames = async (response: Response) => ((await response.json()).result.tools as Array<{ name: string }>).map((t) => t.name);

describe('over HTTP', () => {
  test('a tool that names its own scope answers 403 insufficient_scope, naming the needed and the granted scopes', async () => {
    const response = await legacy(SCOPE, 'tools/call', { name: 'admin_only', arguments: {} });
    expect(response.status).toBe(403);
    expect(challengeOf(response)).toEqual({
      scheme: 'Bearer',
      error: 'insufficient_scope',
      error_description: 'This call needs the scope(s): admin.',
      resource_metadata: `${server.url}/mcp/oauth-protected-resource`,
      scope: `admin ${SCOPE}`,
    });
    expect((await response.json()).error).toEqual({
      code: INSUFFICIENT_SCOPE,
      message: 'Insufficient scope: admin_only needs admin.',
      data: { requiredScopes: ['admin'], grantedScopes: [SCOPE] },
    });
  });

  test('a tool without its own scopes needs AUTH_SCOPES', async () => {
    const response = await legacy('other', 'tools/call', { name: 'whoami', arguments: {} });
    expect(response.status).toBe(403);
    expect(challengeOf(response).scope).toBe(`${SCOPE} other`);
  });

  test('the modern wire answers the same 403 and challenge', async () => {
    const response = await postModern(server.mcpUrl, 1, 'tools/call', { name: 'admin_only', arguments: {} }, {
      headers: { authorization: `Bearer ${await tokenWith(SCOPE)}` },
    });
    expect(response.status).toBe(403);
    expect(challengeOf(response)).toMatchObject({ error: 'insufficient_scope', scope: `admin ${SCOPE}` });
  });

  test('after a step-up to the union of scopes the call succeeds', async () => {
    const response = await legacy(`admin ${SCOPE}`, 'tools/call', { name: 'admin_only', arguments: {} });
    expect(response.status).toBe(200);
    expect((await response.json()).result.content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  test('tools/list hides the tools a token cannot call', async () => {
    expect(await toolNames(await legacy(SCOPE, 'tools/list'))).toEqual(['whoami']);
    expect(await toolNames(await legacy(`${SCOPE} admin`, 'tools/list'))).toEqual(['whoami', 'admin_only']);
    expect(await toolNames(await legacy('admin', 'tools/list'))).toEqual(['admin_only']);
  });

  test('a list that depends on the caller is never cached as public (modern wire cacheScope)', async () => {
    const response = await postModern(server.mcpUrl, 2, 'tools/list', {}, { headers: { authorization: `Bearer ${await tokenWith(SCOPE)}` } });
    expect((await response.json()).result.cacheScope).toBe('private');
  });
});

describe('in-process, the principal is treated exactly like a verified token', () => {
  test('the official client sees and calls only what its scopes allow', async () => {
    const limited = new Client({ name: 'job', version: '1' });
    await limited.connect(server.app.connectInProcess({ subject: 'job', scopes: [SCOPE] }));
    expect((await limited.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
    await expect(limited.callTool({ name: 'admin_only', arguments: {} })).rejects.toMatchObject({ code: INSUFFICIENT_SCOPE });
    const admin = new Client({ name: 'admin', version: '1' });
    await admin.connect(server.app.connectInProcess({ subject: 'root', scopes: [SCOPE, 'admin'] }));
    expect((await admin.callTool({ name: 'admin_only', arguments: {} })).content).toEqual([{ type: 'text', text: 'ok' }]);
    await Promise.all([limited.close(), admin.close()]);
  });

  test('the dispatcher answers a missing scope with an error value, not an HTTP status or a throw', async () => {
    const reply = await server.app.dispatch(
      { jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'admin_only', arguments: {} } },
      { era: 'legacy', protocolVersion: '2025-11-25', principal: { subject: 'job', scopes: [] }, clientCapabilities: {}, signal: new AbortController().signal, store: new MemoryStore() },
    );
    expect(reply).toEqual({
      jsonrpc: '2.0', id: 'x',
      error: { code: INSUFFICIENT_SCOPE, message: 'Insufficient scope: admin_only needs admin.', data: { requiredScopes: ['admin'], grantedScopes: [] } },
    });
  });

  test('without a principal (auth off, in-process without props) no scope is checked', async () => {
    const open = new Client({ name: 'open', version: '1' });
    await open.connect(server.app.connectInProcess());
    expect((await open.listTools()).tools.map((t) => t.name)).toEqual(['whoami', 'admin_only']);
    expect((await open.callTool({ name: 'admin_only', arguments: {} })).content).toEqual([{ type: 'text', text: 'ok' }]);
    await open.close();
  });
});
