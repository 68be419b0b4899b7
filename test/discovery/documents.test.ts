import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createProtectedResourceHandler } from '../../lib/auth/metadata.js';
import { createDiscoveryHandler, SERVER_CARD_TYPE } from '../../lib/discovery/documents.js';
import { publicOrigin } from '../../lib/http/public-url.js';
import { startLocalServer } from '../../scripts/local-server.js';
import { post } from '../support/rpc.js';

const AUTH = { AUTH_ISSUER: 'https://auth.example.com', AUTH_SCOPES: 'agents:chat' };
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  // The real routes of vercel.json, with the discovery functions configured for auth.
  const server = await startLocalServer({
    port: 0,
    functions: {
      '/api/wk-oauth-protected-resource': createProtectedResourceHandler(AUTH),
      '/api/wk-mcp': createDiscoveryHandler(AUTH),
    },
  });
  url = server.url;
  close = server.close;
});
afterAll(() => close());

describe('RFC 9728 protected resource metadata', () => {
  test.each([
    ['/.well-known/oauth-protected-resource/mcp', '/mcp'],
    ['/.well-known/oauth-protected-resource/api/mcp', '/api/mcp'],
    ['/.well-known/oauth-protected-resource', '/mcp'],
  ])('%s names the resource %s exactly', async (path, resource) => {
    const response = await fetch(`${url}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toMatch(/public, max-age=\d+/);
    expect(await response.json()).toEqual({
      resource: `${url}${resource}`,
      authorization_servers: ['https://auth.example.com'],
      scopes_supported: ['agents:chat'],
      bearer_methods_supported: ['header'],
      resource_name: 'agent-mcp',
      resource_documentation: `${url}/`,
    });
  });

  test('an unknown path suffix is 404, and so is everything when auth is off', async () => {
    expect((await fetch(`${url}/.well-known/oauth-protected-resource/other`)).status).toBe(404);
    const off = createProtectedResourceHandler({});
    expect((await off(new Request('http://localhost/.well-known/oauth-protected-resource'))).status).toBe(404);
  });

  test('the preflight is open', async () => {
    const response = await fetch(`${url}/.well-known/oauth-protected-resource/mcp`, { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('/.well-known/mcp.json and the server card', () => {
  test('mcp.json names the endpoint, transport, versions and the auth type', async () => {
    const doc = await (await fetch(`${url}/.well-known/mcp.json`)).json();
    expect(doc).toMatchObject({
      url: `${url}/mcp`,
      transport: 'streamable-http',
      protocolVersion: '2026-07-28',
      serverInfo: { name: 'agent-mcp' },
      auth: { type: 'oauth-protected-resource', resourceMetadata: `${url}/.well-known/oauth-protected-resource/mcp` },
    });
    const open = await createDiscoveryHandler({})(new Request('http://localhost/.well-known/mcp.json'));
    expect((await open.json()).auth).toEqual({ type: 'public' });
  });

  test('the server card has its media type, an ETag and answers 304 to a matching If-None-Match', async () => {
    const response = await fetch(`${url}/mcp/server-card`);
    expect(response.headers.get('content-type')).toBe(SERVER_CARD_TYPE);
    const card = await response.json();
    expect(card).toMatchObject({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: 'localhost/agent-mcp',
      version: expect.any(String),
      remotes: [{ type: 'streamable-http', url: `${url}/mcp` }],
    });
    expect(card.description.length).toBeLessThanOrEqual(100);
    const etag = response.headers.get('etag')!;
    const again = await fetch(`${url}/mcp/server-card`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  test('the documents agree with server/discover and initialize', async () => {
    const card = await (await fetch(`${url}/mcp/server-card`)).json();
    const doc = await (await fetch(`${url}/.well-known/mcp.json`)).json();
    const init = await (await post(`${url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })).json();
    const discover = await (await post(`${url}/mcp`, {
      jsonrpc: '2.0', id: 2, method: 'server/discover',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' })).json();
    expect(init.result.serverInfo).toEqual(doc.serverInfo);
    expect(discover.result._meta['io.modelcontextprotocol/serverInfo']).toEqual(doc.serverInfo);
    expect(discover.result.supportedVersions).toEqual(doc.supportedVersions);
    expect(card.remotes[0].supportedProtocolVersions).toEqual(doc.supportedVersions);
    expect(card.version).toBe(init.result.serverInfo.version);
  });
});

describe('preview deployments advertise themselves', () => {
  const request = (headers: Record<string, string>) => new Request('http://internal.invalid/mcp', { headers });

  test('the forwarded host of a preview wins over the internal URL', () => {
    expect(publicOrigin(request({ 'x-forwarded-host': 'agent-git-feature-team.vercel.app', 'x-forwarded-proto': 'https' }), {}))
      .toBe('https://agent-git-feature-team.vercel.app');
  });

  test('PUBLIC_URL overrides everything', () => {
    expect(publicOrigin(request({ 'x-forwarded-host': 'x.vercel.app' }), { PUBLIC_URL: 'https://agent.example.com/' })).toBe('https://agent.example.com');
  });

  test('the PRM of a preview names the preview URL', async () => {
    const handler = createProtectedResourceHandler(AUTH);
    const response = await handler(new Request('http://internal.invalid/api/wk-oauth-protected-resource?path=mcp', {
      headers: { 'x-forwarded-host': 'agent-abc123-team.vercel.app', 'x-forwarded-proto': 'https' },
    }));
    expect((await response.json()).resource).toBe('https://agent-abc123-team.vercel.app/mcp');
  });
});
