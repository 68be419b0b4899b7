/**
 * What the real clients of 2026 send the built-in authorization server, each in its documented request shape
 * (issue 27 §3; docs/oauth.md "Clients", its table of what each client uses and how it is tested): Claude's
 * Client ID Metadata Document with `none`, `offline_access` and `prompt=consent`; ChatGPT's document preferring private_key_jwt and its stable
 * callback that needs RFC 9207 `iss`; Cursor's registration of three redirect URIs, one a custom scheme; VS Code's
 * loopback redirect whose port changes between attempts. The metadata documents are served on loopback here,
 * which the server allows when it runs locally (deployed, a document must be https on a public address).
 */

import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { authorizationUrl, callWith, pkce, register, signIn, tokenRequest } from '../../support/authz-client.js';
import { startAuthzStack, type AuthzStack } from '../../support/authz-stack.js';
import { challengeOf, SCOPE } from '../../support/protected-app.js';

let stack: AuthzStack;
let documents: Server;
let docOrigin: string;
const served: Record<string, number> = {};
const DOCS: Record<string, (id: string) => Record<string, unknown>> = {
  // Claude (claude.ai, Desktop, Claude Code): https://claude.ai/oauth/mcp-oauth-client-metadata
  '/oauth/mcp-oauth-client-metadata': (id) => ({
    client_id: id, client_name: 'Claude', client_uri: 'https://claude.ai',
    redirect_uris: ['https://claude.ai/api/mcp/auth_callback', 'https://claude.com/api/mcp/auth_callback'],
    grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none',
  }),
  // ChatGPT: its document prefers private_key_jwt, and falls back to none where that is all a server takes.
  '/oauth/chatgpt/client.json': (id) => ({
    client_id: id, client_name: 'ChatGPT', redirect_uris: ['https://chatgpt.com/connector_platform_oauth_redirect'],
    grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'private_key_jwt',
    jwks_uri: 'https://chatgpt.com/oauth/jwks.json',
  }),
};

beforeAll(async () => {
  stack = await startAuthzStack();
  documents = createServer((req, res) => {
    const make = DOCS[req.url!];
    served[req.url!] = (served[req.url!] ?? 0) + 1;
    if (!make) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' }).end(JSON.stringify(make(`${docOrigin}${req.url}`)));
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  docOrigin = `http://127.0.0.1:${(documents.address() as { port: number }).port}`;
}, 30_000);
afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => documents?.close(resolve));
});

const exchange = (form: Record<string, string>) => tokenRequest(stack.origin, { grant_type: 'authorization_code', ...form });

describe('discovery', () => {
  test('the 401 challenge names the metadata by an absolute URL, whose authorization server is this deployment, which advertises CIMD with none, iss and S256', async () => {
    const unauthorized = await fetch(stack.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
    expect(unauthorized.status).toBe(401);
    const { resource_metadata: prmUrl } = challengeOf(unauthorized);
    expect(prmUrl).toBe(`${stack.origin}/mcp/oauth-protected-resource`);
    const prm = await (await fetch(prmUrl!)).json();
    expect(prm).toMatchObject({ resource: stack.mcpUrl, authorization_servers: [stack.origin] });
    const metadata = await (await fetch(`${stack.origin}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toMatchObject({
      issuer: stack.origin,
      client_id_metadata_document_supported: true,
      token_endpoint_auth_methods_supported: ['none'],
      authorization_response_iss_parameter_supported: true,
      code_challenge_methods_supported: ['S256'],
    });
    expect(metadata.scopes_supported).toContain('offline_access');
    const mcpJson = await (await fetch(`${stack.origin}/.well-known/mcp.json`)).json();
    expect(mcpJson.auth).toMatchObject({ type: 'oauth-protected-resource', authorizationServers: [stack.origin] });
  });
});

describe('Claude: a Client ID Metadata Document, scope=offline_access, prompt=consent', () => {
  test('the consent page shows the document\'s host, not its name, and the callback on claude.ai gets a code, iss and a refresh token', async () => {
    const clientId = `${docOrigin}/oauth/mcp-oauth-client-metadata`;
    const { verifier, challenge } = pkce();
    const pages: string[] = [];
    const redirect = 'https://claude.ai/api/mcp/auth_callback';
    const landed = await signIn(authorizationUrl(stack.origin, {
      client_id: clientId, redirect_uri: redirect, code_challenge: challenge, scope: 'offline_access', prompt: 'consent', state: 'claude-state',
    }), redirect, { pages });
    expect(pages[0]).toContain(`metadata document at <strong>${new URL(docOrigin).host}</strong>`);
    expect(pages[0]).toContain('It calls itself <strong>“Claude”</strong> (its own words)');
    expect(pages[0]).toContain('<strong>claude.ai</strong>');
    expect(landed.searchParams.get('iss')).toBe(stack.origin);
    expect(landed.searchParams.get('state')).toBe('claude-state');
    const tokens = await exchange({ code: landed.searchParams.get('code')!, code_verifier: verifier, client_id: clientId, redirect_uri: redirect, resource: stack.mcpUrl });
    expect(tokens.status).toBe(200);
    // Only offline_access was asked for: the token carries the default scopes, and a refresh token comes.
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', scope: `${SCOPE} offline_access`, refresh_token: expect.stringMatching(/^amcp_rt_/) });
    expect((await callWith(stack.mcpUrl, tokens.body.access_token as string)).body.result.content[0].text).toContain('"subject":"oidc:alice"');
  }, 30_000);

  test('its claude.com callback is accepted as well', async () => {
    const clientId = `${docOrigin}/oauth/mcp-oauth-client-metadata`;
    const redirect = 'https://claude.com/api/mcp/auth_callback';
    const landed = await signIn(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: redirect, code_challenge: pkce().challenge, scope: 'offline_access' }), redirect);
    expect(landed.searchParams.get('code')).toBeTruthy();
  }, 30_000);

  test('the document is fetched once and then read from the store while its Cache-Control allows', async () => {
    const clientId = `${docOrigin}/oauth/mcp-oauth-client-metadata`;
    const before = served['/oauth/mcp-oauth-client-metadata'] ?? 0;
    for (let i = 0; i < 3; i++) {
      const response = await fetch(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: 'https://claude.ai/api/mcp/auth_callback', code_challenge: pkce().challenge }));
      expect(response.status).toBe(200);
    }
    expect(served['/oauth/mcp-oauth-client-metadata']! - before).toBeLessThanOrEqual(1);
  });
});

describe('ChatGPT: a document preferring private_key_jwt, and the stable callback that needs iss', () => {
  test('it signs in as a public client and its stable callback gets iss', async () => {
    const clientId = `${docOrigin}/oauth/chatgpt/client.json`;
    const redirect = 'https://chatgpt.com/connector_platform_oauth_redirect';
    const { verifier, challenge } = pkce();
    const landed = await signIn(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: redirect, code_challenge: challenge, state: 'gpt' }), redirect);
    expect(landed.searchParams.get('iss')).toBe(stack.origin);
    const tokens = await exchange({ code: landed.searchParams.get('code')!, code_verifier: verifier, client_id: clientId, redirect_uri: redirect, resource: stack.mcpUrl });
    expect(tokens.status).toBe(200);
    expect(tokens.body.refresh_token).toMatch(/^amcp_rt_/);
  }, 30_000);
});

describe('Cursor: one registration with three redirect URIs, one a custom scheme', () => {
  const URIS = ['cursor://anysphere.cursor-mcp/oauth/callback', 'https://www.cursor.com/agents/mcp/oauth/callback', 'http://localhost:8787/callback'];

  test('all three are registered, and the custom scheme receives the code', async () => {
    const registered = await register(stack.origin, {
      client_name: 'Cursor', redirect_uris: URIS, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none',
    });
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({ redirect_uris: URIS, token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] });
    const clientId = registered.body.client_id as string;
    const { verifier, challenge } = pkce();
    const pages: string[] = [];
    const landed = await signIn(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: URIS[0]!, code_challenge: challenge }), URIS[0]!, { pages });
    expect(pages[0]).toContain('registered itself with this server as <strong>“Cursor”</strong>, a name it chose and no one checked');
    expect(pages[0]).toContain('the app that opens cursor://anysphere.cursor-mcp links');
    expect(landed.protocol).toBe('cursor:');
    const tokens = await exchange({ code: landed.searchParams.get('code')!, code_verifier: verifier, client_id: clientId, redirect_uri: URIS[0]! });
    expect(tokens.status).toBe(200);
  }, 30_000);
});

describe('VS Code: a loopback redirect whose port changes between attempts', () => {
  test('a port other than the registered one is accepted on loopback, and the token request names that same URI', async () => {
    const uris = ['http://127.0.0.1:33418/', 'http://127.0.0.1/', 'https://vscode.dev/redirect', 'https://insiders.vscode.dev/redirect'];
    const clientId = (await register(stack.origin, { client_name: 'Visual Studio Code', redirect_uris: uris, grant_types: ['authorization_code', 'refresh_token'], application_type: 'native' })).body.client_id as string;
    for (const port of [33418, 51234]) {
      const redirect = `http://127.0.0.1:${port}/`;
      const { verifier, challenge } = pkce();
      const landed = await signIn(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: redirect, code_challenge: challenge }), redirect);
      const tokens = await exchange({ code: landed.searchParams.get('code')!, code_verifier: verifier, client_id: clientId, redirect_uri: redirect });
      expect(tokens.status).toBe(200);
    }
  }, 30_000);

  test('a different loopback host or path is not a port change', async () => {
    const clientId = (await register(stack.origin, { redirect_uris: ['http://127.0.0.1:33418/'] })).body.client_id as string;
    for (const redirect of ['http://localhost:33418/', 'http://127.0.0.1:33418/other']) {
      const response = await fetch(authorizationUrl(stack.origin, { client_id: clientId, redirect_uri: redirect, code_challenge: pkce().challenge }), { redirect: 'manual' });
      expect(response.status).toBe(400);
    }
  });
});
