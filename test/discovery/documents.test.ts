/**
 * `/.well-known/mcp.json`, the MCP Server Card at `/mcp/server-card` and the AI Catalog at
 * `/.well-known/ai-catalog.json` (docs/protocol.md "Discovery documents": SEP-2127 as experimental-ext-server-card states it,
 * and the AI Catalog specification): never behind auth, CORS `*`, cacheable with an ETag, and saying what
 * `initialize` and `server/discover` say.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AI_CATALOG_TYPE, cardName, createDiscoveryHandler, SERVER_CARD_TYPE } from '../../lib/discovery/documents.js';
import { startLocalServer } from '../../scripts/local-server.js';
import { post } from '../support/rpc.js';

const AUTH = { AUTH_ISSUER: 'https://auth.example.com', AUTH_SCOPES: 'agents:chat' };
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  // The real routes of vercel.json; the MCP function is the deployment's default (auth off).
  const server = await startLocalServer({ port: 0, functions: { '/api/wk-mcp': createDiscoveryHandler(AUTH) } });
  url = server.url;
  close = server.close;
});
afterAll(() => close());

describe('/.well-known/mcp.json', () => {
  test('names the endpoint, transport, versions and, with auth on, the OAuth metadata', async () => {
    const response = await fetch(`${url}/.well-known/mcp.json`);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({
      url: `${url}/mcp`,
      transport: 'streamable-http',
      protocolVersion: '2026-07-28',
      supportedVersions: expect.arrayContaining(['2025-11-25', '2026-07-28']),
      serverInfo: { name: 'agent-mcp', version: expect.any(String) },
      auth: {
        type: 'oauth-protected-resource',
        resourceMetadata: `${url}/mcp/oauth-protected-resource`,
        authorizationServers: ['https://auth.example.com'],
        scopes: ['agents:chat'],
      },
      serverCard: `${url}/mcp/server-card`,
    });
  });

  test.each(['/.well-known/mcp.json', '/mcp.json'])('%s also has the seed tutorial\'s `server: {name, version, url, transport}`', async (path) => {
    const doc = await (await fetch(`${url}${path}`)).json();
    expect(doc.server).toEqual({ name: 'agent-mcp', version: doc.serverInfo.version, url: `${url}/mcp`, transport: 'streamable-http' });
    // A client following the tutorial connects to `server.url`: it must be the MCP endpoint itself.
    const init = await post(doc.server.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    expect((await init.json()).result.serverInfo.name).toBe('agent-mcp');
  });

  test('is also served at /mcp.json, a path that needs no /.well-known rewrite, and the server card links it', async () => {
    const card = await (await fetch(`${url}/mcp/server-card`)).json();
    expect(card._meta['agent-mcp/mcp.json']).toBe(`${url}/mcp.json`);
    const response = await fetch(card._meta['agent-mcp/mcp.json']);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(await (await fetch(`${url}/.well-known/mcp.json`)).json());
  });

  test('with auth off it says the server is public', async () => {
    const open = await createDiscoveryHandler({})(new Request('http://localhost/.well-known/mcp.json'));
    expect((await open.json()).auth).toEqual({ type: 'public' });
  });

  test('with API keys alone it says a client sends a key as a Bearer token, and names no authorization server', async () => {
    const keys = { MCP_API_KEYS: `ci sha256=${'0'.repeat(64)}` };
    const doc = await (await createDiscoveryHandler(keys)(new Request('http://localhost/.well-known/mcp.json'))).json();
    expect(doc.auth).toEqual({ type: 'api-key', header: 'Authorization', scheme: 'Bearer' });
  });

  test('with API keys beside OAuth it names the OAuth metadata and says keys are taken too', async () => {
    const both = { ...AUTH, MCP_API_KEYS: `ci sha256=${'0'.repeat(64)}` };
    const doc = await (await createDiscoveryHandler(both)(new Request('http://localhost/.well-known/mcp.json'))).json();
    expect(doc.auth).toMatchObject({ type: 'oauth-protected-resource', authorizationServers: ['https://auth.example.com'], apiKeys: true });
  });

  test('is cacheable and revalidates with its ETag', async () => {
    const response = await fetch(`${url}/.well-known/mcp.json`);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const again = await fetch(`${url}/.well-known/mcp.json`, { headers: { 'if-none-match': response.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });
});

describe('the MCP Server Card', () => {
  test('has its media type, the draft\'s required fields, and the streamable-http remote', async () => {
    const response = await fetch(`${url}/mcp/server-card`, { headers: { accept: SERVER_CARD_TYPE } });
    expect(response.headers.get('content-type')).toBe(SERVER_CARD_TYPE);
    const card = await response.json();
    expect(card).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: 'localhost/agent-mcp',
      title: 'agent-mcp',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      description: expect.any(String),
      websiteUrl: `${url}/`,
      remotes: [{ type: 'streamable-http', url: `${url}/mcp`, supportedProtocolVersions: expect.arrayContaining(['2026-07-28']) }],
      _meta: { 'agent-mcp/mcp.json': `${url}/mcp.json` },
    });
    expect(card.description.length).toBeGreaterThan(0);
    expect(card.description.length).toBeLessThanOrEqual(100);
  });

  test('a reverse-DNS name with exactly one slash comes from the host', () => {
    expect(cardName('https://agent.example.com')).toBe('com.example.agent/agent-mcp');
    expect(cardName('https://agent-git-main-team.vercel.app')).toBe('app.vercel.agent-git-main-team/agent-mcp');
  });

  test('is served with CORS * (GET, Content-Type and If-None-Match allowed, ETag exposed) and Cache-Control', async () => {
    const preflight = await fetch(`${url}/mcp/server-card`, {
      method: 'OPTIONS', headers: { origin: 'https://registry.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Content-Type.*If-None-Match/);
    const response = await fetch(`${url}/mcp/server-card`, { headers: { origin: 'https://registry.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toContain('ETag');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
  });

  test('answers 304 to a matching If-None-Match, and HEAD without a body', async () => {
    const response = await fetch(`${url}/mcp/server-card`);
    const etag = response.headers.get('etag')!;
    expect((await fetch(`${url}/mcp/server-card`, { headers: { 'if-none-match': `"other", ${etag}` } })).status).toBe(304);
    expect((await fetch(`${url}/mcp/server-card`, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
    const head = await fetch(`${url}/mcp/server-card`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(etag);
  });

  test('as the function sees a Vercel rewrite (?doc=card), it is the same card', async () => {
    const handler = createDiscoveryHandler(AUTH);
    const response = await handler(new Request(`${url}/api/wk-mcp?doc=card`, { headers: { host: new URL(url).host } }));
    expect(response.headers.get('content-type')).toBe(SERVER_CARD_TYPE);
    expect((await response.json()).remotes[0].url).toBe(`${url}/mcp`);
  });
});

/**
 * The card's fields as the Server Card schema constrains them (modelcontextprotocol/experimental-ext-server-card
 * schema.ts at 8924e08, 2026-07-24): the members it defines, and the patterns and lengths of those it bounds.
 */
const CARD_MEMBERS = ['$schema', 'name', 'version', 'description', 'title', 'websiteUrl', 'repository', 'icons', 'remotes', '_meta'];
const REMOTE_MEMBERS = ['type', 'url', 'headers', 'variables', 'supportedProtocolVersions'];

describe('the card against the Server Card schema', () => {
  test('has only the schema\'s members, its required ones, and values within its patterns and lengths', async () => {
    const card = await (await fetch(`${url}/mcp/server-card`)).json();
    expect(CARD_MEMBERS).toEqual(expect.arrayContaining(Object.keys(card)));
    expect(card.$schema).toMatch(/^https:\/\/static\.modelcontextprotocol\.io\/schemas\/v1\/server-card\.schema\.json$/);
    expect(card.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    expect(card.name.length).toBeGreaterThanOrEqual(3);
    expect(card.name.length).toBeLessThanOrEqual(200);
    expect(card.version).not.toMatch(/[\^~>=<*x]/);
    for (const text of [card.description, card.title]) expect(text.length).toBeGreaterThanOrEqual(1);
    for (const text of [card.description, card.title]) expect(text.length).toBeLessThanOrEqual(100);
    for (const remote of card.remotes) {
      expect(REMOTE_MEMBERS).toEqual(expect.arrayContaining(Object.keys(remote)));
      expect(['streamable-http', 'sse']).toContain(remote.type);
      expect(remote.url).toMatch(/^https?:\/\/[^\s]+$/);
    }
    // _meta keys: an optional prefix of dot-separated labels and a slash, then a name (the protocol's MetaObject).
    for (const key of Object.keys(card._meta)) expect(key).toMatch(/^(?:[a-zA-Z](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*\/)?[a-zA-Z0-9](?:[a-zA-Z0-9._-]*[a-zA-Z0-9])?$/);
  });
});

describe('/.well-known/ai-catalog.json', () => {
  test('is an AI Catalog of its media type: the version of the format, the host, and one entry naming the server card by URL and media type', async () => {
    const response = await fetch(`${url}/.well-known/ai-catalog.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(AI_CATALOG_TYPE);
    expect(await response.json()).toEqual({
      specVersion: '1.0',
      host: { displayName: 'agent-mcp', identifier: 'localhost', documentationUrl: `${url}/` },
      entries: [{ identifier: 'urn:air:localhost:mcp:agent-mcp', type: SERVER_CARD_TYPE, url: `${url}/mcp/server-card` }],
    });
  });

  test('a client following the entry, with the card\'s media type in Accept, gets the card; the identifier ends with the card\'s name', async () => {
    const { entries: [entry] } = await (await fetch(`${url}/.well-known/ai-catalog.json`)).json();
    const response = await fetch(entry.url, { headers: { accept: entry.type } });
    expect(response.headers.get('content-type')).toBe(entry.type);
    const card = await response.json();
    expect(entry.identifier.split(':').at(-1)).toBe(card.name.split('/')[1]);
    expect(card.remotes[0].url).toBe(`${url}/mcp`);
  });

  test('names the host a deployment is reached at, as the card does', async () => {
    const handler = createDiscoveryHandler({ PUBLIC_URL: 'https://agent.example.com' });
    const catalog = await (await handler(new Request('http://localhost/api/wk-mcp?doc=catalog'))).json();
    expect(catalog.host).toEqual({ displayName: 'agent-mcp', identifier: 'agent.example.com', documentationUrl: 'https://agent.example.com/' });
    expect(catalog.entries[0]).toEqual({
      identifier: 'urn:air:agent.example.com:mcp:agent-mcp', type: SERVER_CARD_TYPE, url: 'https://agent.example.com/mcp/server-card',
    });
  });

  test('is served with CORS *, Cache-Control and an ETag a client revalidates with', async () => {
    const response = await fetch(`${url}/.well-known/ai-catalog.json`, { headers: { origin: 'https://crawler.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    const again = await fetch(`${url}/.well-known/ai-catalog.json`, { headers: { 'if-none-match': response.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });
});

describe('the discovery function asked for a document it does not have', () => {
  test('?doc= naming none of mcp, card and catalog is a 404 that says which it serves, not mcp.json', async () => {
    const handler = createDiscoveryHandler(AUTH);
    const ask = (query: string) => handler(new Request(`${url}/api/wk-mcp${query}`, { headers: { host: new URL(url).host } }));
    const unknown = await ask('?doc=server-card');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'not_found', error_description: 'No such discovery document: doc must be mcp, card, catalog.' });
    expect((await ask('?doc=mcp')).status).toBe(200);
    expect((await ask('')).status).toBe(200);
  });
});

describe('one source of truth', () => {
  test('the documents agree with initialize and server/discover', async () => {
    const card = await (await fetch(`${url}/mcp/server-card`)).json();
    const doc = await (await fetch(`${url}/.well-known/mcp.json`)).json();
    const init = await (await post(`${url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })).json();
    const discover = await (await post(`${url}/mcp`, {
      jsonrpc: '2.0', id: 2, method: 'server/discover',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' })).json();
    expect(init.result.serverInfo).toEqual(doc.serverInfo);
    expect(init.result.instructions).toBe(doc.instructions);
    expect(discover.result._meta['io.modelcontextprotocol/serverInfo']).toEqual(doc.serverInfo);
    expect(discover.result.supportedVersions).toEqual(doc.supportedVersions);
    expect(card.remotes[0].supportedProtocolVersions).toEqual(doc.supportedVersions);
    expect([card.version, card.title]).toEqual([init.result.serverInfo.version, init.result.serverInfo.title]);
  });
});
