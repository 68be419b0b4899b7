/**
 * The whole sign-in, as Claude, Cursor or the Inspector do it, against a real authorization server
 * (oidc-provider on loopback): the official SDK v2 client reads our 401 challenge, fetches our protected
 * resource metadata, discovers the authorization server, registers itself (dynamic registration), runs the
 * authorization code flow with PKCE for our resource (RFC 8707), and then calls a tool with the JWT.
 */

import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createApp } from '../../lib/app.js';
import { createBearerAuth, readAuthConfig } from '../../lib/auth/index.js';
import { createProtectedResourceHandler } from '../../lib/auth/metadata.js';
import { startLocalServer } from '../../scripts/local-server.js';
import { startOAuthServer, type OAuthServer } from '../support/oauth-server.js';

const SCOPE = 'agents:chat';
const REDIRECT = 'http://127.0.0.1:6276/oauth/callback';
let as: OAuthServer;
let mcp: { url: string; close(): Promise<void> };

beforeAll(async () => {
  as = await startOAuthServer({ scope: SCOPE });
  const env = { AUTH_ISSUER: as.issuer, AUTH_SCOPES: SCOPE };
  const config = readAuthConfig(env)!;
  const app = createApp({
    definitions: [{ tools: [{ name: 'whoami', description: 'Who is calling.', run: (_a, ctx) => ({ content: [{ type: 'text', text: ctx.principal?.subject ?? 'nobody' }] }) }] }],
    stateSecret: 's'.repeat(32),
    origin: { local: true, allowedOrigins: new Set() },
    auth: createBearerAuth(config, env),
    defaultToolScopes: config.scopes,
  });
  mcp = await startLocalServer({
    port: 0,
    functions: { '/api/mcp': createMcpHandler(app), '/api/wk-oauth-protected-resource': createProtectedResourceHandler(env) },
  });
}, 30_000);
afterAll(async () => {
  await mcp?.close();
  await as?.close();
});

/** A client's OAuth state, kept in memory; the browser step is done by `authorize` below. */
function memoryProvider(): OAuthClientProvider & { authorizationUrl?: URL } {
  const state: { client?: any; tokens?: any; verifier?: string; authorizationUrl?: URL } = {};
  return {
    get redirectUrl() { return REDIRECT; },
    get clientMetadata() {
      // No refresh_token grant: this test server issues none (it does not offer offline_access).
      return { client_name: 'agent-mcp test client', redirect_uris: [REDIRECT], grant_types: ['authorization_code'],
        response_types: ['code'], token_endpoint_auth_method: 'none', application_type: 'native' } as any;
    },
    clientInformation: () => state.client,
    saveClientInformation: (info) => { state.client = info; },
    tokens: () => state.tokens,
    saveTokens: (tokens) => { state.tokens = tokens; },
    redirectToAuthorization: (url) => { state.authorizationUrl = url; },
    saveCodeVerifier: (verifier) => { state.verifier = verifier; },
    codeVerifier: () => state.verifier!,
    get authorizationUrl() { return state.authorizationUrl; },
  };
}

/** Plays the browser: follows redirects with cookies until the authorization server redirects to us. */
async function authorize(url: URL): Promise<URLSearchParams> {
  const cookies = new Map<string, string>();
  let next = url.href;
  for (let hop = 0; hop < 20; hop++) {
    if (next.startsWith(REDIRECT)) return new URL(next).searchParams;
    const response = await fetch(next, { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair!.split('=');
      cookies.set(name!.trim(), value.join('='));
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`the authorization flow stopped at ${next} with HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
    next = new URL(location, next).href;
  }
  throw new Error('too many redirects');
}

test('the official client signs in through the 401 challenge and calls a tool with the issued token', async () => {
  const provider = memoryProvider();
  const url = new URL(`${mcp.url}/mcp`);
  const first = new Client({ name: 'oauth-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);

  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl.searchParams.get('resource')).toBe(`${mcp.url}/mcp`);
  expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorizationUrl.searchParams.get('scope')).toContain(SCOPE);

  const callback = await authorize(authorizationUrl);
  await transport.finishAuth(callback.get('code')!, callback.get('iss') ?? undefined);
  expect((await provider.tokens())?.access_token).toMatch(/^ey/);

  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  expect(result.content).toEqual([{ type: 'text', text: 'alice' }]);
  await client.close();
}, 30_000);
