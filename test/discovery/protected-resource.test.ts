/**
 * RFC 9728 protected resource metadata through the real vercel.json routes: root and path-suffixed, never
 * behind auth, open to every origin, cacheable, and naming as `resource` the exact MCP URL a client pasted
 * (which the challenge of that URL points to).
 */

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createProtectedResourceHandler } from '../../lib/auth/metadata.js';
import { startLocalServer } from '../../scripts/local-server.js';
import { challengeOf, createProtectedApp } from '../support/protected-app.js';
import { post } from '../support/rpc.js';

const AUTH = { AUTH_ISSUER: 'https://auth.example.com', AUTH_SCOPES: 'agents:chat' };
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const server = await startLocalServer({
    port: 0,
    functions: {
      '/api/mcp': createMcpHandler(createProtectedApp(AUTH)),
      '/api/wk-oauth-protected-resource': createProtectedResourceHandler(AUTH),
    },
  });
  url = server.url;
  close = server.close;
});
afterAll(() => close());

const expected = (resource: string) => ({
  resource: `${url}${resource}`,
  authorization_servers: ['https://auth.example.com'],
  scopes_supported: ['agents:chat'],
  bearer_methods_supported: ['header'],
  resource_name: 'agent-mcp',
  resource_documentation: `${url}/`,
});

describe('where the metadata is', () => {
  test.each([
    ['/.well-known/oauth-protected-resource/mcp', '/mcp'],
    ['/.well-known/oauth-protected-resource/api/mcp', '/api/mcp'],
    ['/.well-known/oauth-protected-resource', '/mcp'],
    ['/mcp/oauth-protected-resource', '/mcp'],
    ['/api/mcp/oauth-protected-resource', '/api/mcp'],
    // The seed tutorial's location (step 9): the well-known segment under the MCP path.
    ['/api/mcp/.well-known/oauth-protected-resource', '/api/mcp'],
    ['/mcp/.well-known/oauth-protected-resource', '/mcp'],
  ])('%s names the resource %s exactly', async (path, resource) => {
    const response = await fetch(`${url}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual(expected(resource));
  });

  test.each(['/mcp', '/api/mcp'])('the 401 challenge at %s points to metadata whose resource is that very URL', async (path) => {
    const challenge = challengeOf(await post(`${url}${path}`, { jsonrpc: '2.0', id: 1, method: 'ping' }));
    const metadata = await (await fetch(challenge.resource_metadata!)).json();
    expect(metadata.resource).toBe(`${url}${path}`);
  });

  test('as the function sees a Vercel rewrite (destination path, suffix in ?path=), the answer is the same', async () => {
    const handler = createProtectedResourceHandler(AUTH);
    const at = (query: string) => handler(new Request(`${url}/api/wk-oauth-protected-resource${query}`, { headers: { host: new URL(url).host } }));
    expect((await (await at('?path=api/mcp')).json()).resource).toBe(`${url}/api/mcp`);
    expect((await (await at('?path=mcp')).json()).resource).toBe(`${url}/mcp`);
    expect((await (await at('')).json()).resource).toBe(`${url}/mcp`);
  });

  test('an unknown path suffix is 404', async () => {
    expect((await fetch(`${url}/.well-known/oauth-protected-resource/other`)).status).toBe(404);
    const handler = createProtectedResourceHandler(AUTH);
    expect((await handler(new Request(`${url}/other/oauth-protected-resource`))).status).toBe(404);
    expect((await handler(new Request(`${url}/other/.well-known/oauth-protected-resource`))).status).toBe(404);
    expect((await handler(new Request(`${url}/api/mcp/.well-known/oauth-protected-resource/mcp`))).status).toBe(404);
  });

  test.each(['/mcp', '/api/mcp'])('the 401 challenge at %s names a metadata URL that needs no /.well-known rewrite (vercel.json)', async (path) => {
    const { pathname } = new URL(challengeOf(await post(`${url}${path}`, { jsonrpc: '2.0', id: 1, method: 'ping' })).resource_metadata!);
    expect(pathname).toBe(`${path}/oauth-protected-resource`);
    const { rewrites } = JSON.parse(readFileSync(new URL('../../vercel.json', import.meta.url), 'utf8')) as { rewrites: Array<{ source: string; destination: string }> };
    expect(rewrites).toContainEqual({ source: pathname, destination: '/api/wk-oauth-protected-resource' });
  });

  test('with auth off there is no protected resource: 404 at every location', async () => {
    const off = createProtectedResourceHandler({});
    const response = await off(new Request('http://localhost/.well-known/oauth-protected-resource/mcp'));
    expect(response.status).toBe(404);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('with API keys alone there is no authorization server, so no protected resource either: 404 saying the server takes keys', async () => {
    const keysOnly = createProtectedResourceHandler({ MCP_API_KEYS: `ci sha256=${'0'.repeat(64)}` });
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/mcp/oauth-protected-resource']) {
      const response = await keysOnly(new Request(`http://localhost${path}`));
      expect(response.status).toBe(404);
      expect(await response.text()).toContain('it takes API keys (Authorization: Bearer <key>)');
    }
  });

  test('AUTH_AUDIENCE changes the audience tokens must carry, never the resource clients check', async () => {
    const pinned = createProtectedResourceHandler({ ...AUTH, AUTH_AUDIENCE: 'https://api.example.com' });
    expect((await (await pinned(new Request('http://localhost/.well-known/oauth-protected-resource/mcp'))).json()).resource)
      .toBe('http://localhost/mcp');
  });
});

describe('how it is served', () => {
  test('it never needs a token, and any origin may read it (CORS *)', async () => {
    const response = await fetch(`${url}/.well-known/oauth-protected-resource/mcp`, { headers: { origin: 'https://claude.ai' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  test('the preflight is answered 204 for any origin', async () => {
    const response = await fetch(`${url}/.well-known/oauth-protected-resource/mcp`, {
      method: 'OPTIONS', headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'GET' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toContain('GET');
  });

  test('the preflight allows the Vercel protection-bypass header, so a browser client may send it to a protected preview', async () => {
    const response = await fetch(`${url}/.well-known/oauth-protected-resource/mcp`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-vercel-protection-bypass' },
    });
    expect(response.status).toBe(204);
    const allowed = response.headers.get('access-control-allow-headers')!.split(',').map((h) => h.trim().toLowerCase());
    expect(allowed).toContain('x-vercel-protection-bypass');
  });

  test('it is publicly cacheable, varies by host, and revalidates with its ETag (304)', async () => {
    const response = await fetch(`${url}/.well-known/oauth-protected-resource`);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    expect(response.headers.get('vary')).toMatch(/host/i);
    const etag = response.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    const again = await fetch(`${url}/.well-known/oauth-protected-resource`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  test('methods other than GET, HEAD and OPTIONS get 405 with Allow', async () => {
    const response = await fetch(`${url}/.well-known/oauth-protected-resource`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});
