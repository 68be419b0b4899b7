/**
 * The built functions with auth on (run `npm run build` first; `npm test` does): api/mcp challenges and then
 * verifies a real token with the jose chunk it loads on demand, and an API key beside it, and the discovery
 * functions answer.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error plain ESM helper without type declarations
import { loadBuiltFunction } from '../../scripts/load-built.mjs';
import { keyLine, mintTestKey } from '../support/api-keys.js';
import { startIssuer, type TestIssuer } from '../support/issuer.js';

type Fn = { fetch(request: Request): Promise<Response> };
let issuer: TestIssuer;
let mcp: Fn;
const KEY = mintTestKey();

beforeAll(async () => {
  issuer = await startIssuer();
  // The functions read the environment on their first request, as on Vercel. Off Vercel and without PUBLIC_URL,
  // the deployment's app takes a fixed audience (or refuses to start rather than follow the Host).
  Object.assign(process.env, {
    AUTH_ISSUER: issuer.issuer, AUTH_SCOPES: 'agents:chat', AUTH_AUDIENCE: 'http://localhost/mcp', MCP_API_KEYS: keyLine('ci', KEY, 'scopes=agents:chat'),
  });
  mcp = await loadBuiltFunction('api/mcp');
});
afterAll(async () => {
  delete process.env.AUTH_ISSUER;
  delete process.env.AUTH_SCOPES;
  delete process.env.AUTH_AUDIENCE;
  delete process.env.MCP_API_KEYS;
  await issuer?.close();
});

const toolsList = (headers: Record<string, string> = {}) => new Request('http://localhost/mcp', {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
});

describe('the built api/mcp function with AUTH_ISSUER', () => {
  test('challenges a request without a token', async () => {
    const response = await mcp.fetch(toolsList());
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate'))
      .toBe('Bearer resource_metadata="http://localhost/mcp/oauth-protected-resource", scope="agents:chat"');
  });

  test('verifies a real token and serves the caller', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.mint({ iss: issuer.issuer, aud: 'http://localhost/mcp', sub: 'alice', scope: 'agents:chat', iat: now, exp: now + 60 });
    const response = await mcp.fetch(toolsList({ authorization: `Bearer ${token}` }));
    expect(response.status).toBe(200);
    expect((await response.json()).result.tools.map((t: { name: string }) => t.name)).toContain('chat_with_agent');
  });
});

describe('the built api/mcp function with MCP_API_KEYS beside AUTH_ISSUER', () => {
  test('serves a configured API key and refuses one of the right shape but a wrong value', async () => {
    const served = await mcp.fetch(toolsList({ authorization: `Bearer ${KEY}` }));
    expect(served.status).toBe(200);
    expect((await served.json()).result.tools.map((t: { name: string }) => t.name)).toContain('chat_with_agent');
    const refused = await mcp.fetch(toolsList({ authorization: `Bearer ${mintTestKey()}` }));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error_description="The API key is not valid."');
  });
});

describe('the built discovery functions', () => {
  test('api/wk-oauth-protected-resource names the resource and the issuer', async () => {
    const fn: Fn = await loadBuiltFunction('api/wk-oauth-protected-resource');
    const response = await fn.fetch(new Request('http://localhost/api/wk-oauth-protected-resource?path=mcp'));
    expect(await response.json()).toMatchObject({ resource: 'http://localhost/mcp', authorization_servers: [issuer.issuer] });
  });

  test('api/wk-oauth-protected-resource answers at the URL the challenge names, as a rewrite delivers it', async () => {
    const fn: Fn = await loadBuiltFunction('api/wk-oauth-protected-resource');
    const response = await fn.fetch(new Request('http://localhost/api/mcp/oauth-protected-resource'));
    expect(await response.json()).toMatchObject({ resource: 'http://localhost/api/mcp', authorization_servers: [issuer.issuer] });
  });

  test('api/wk-mcp serves mcp.json and the server card', async () => {
    const fn: Fn = await loadBuiltFunction('api/wk-mcp');
    const doc = await (await fn.fetch(new Request('http://localhost/api/wk-mcp?doc=mcp'))).json();
    expect(doc.auth).toMatchObject({ type: 'oauth-protected-resource' });
    const card = await fn.fetch(new Request('http://localhost/api/wk-mcp?doc=card'));
    expect(card.headers.get('content-type')).toBe('application/mcp-server-card+json');
  });
});
