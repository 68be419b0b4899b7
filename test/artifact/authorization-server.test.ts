/**
 * The built functions with the built-in authorization server on (run `npm run build` first; `npm test` does):
 * api/oauth, api/wk-oauth-protected-resource and api/mcp, as the bundles Vercel deploys, on one loopback origin
 * with the routes vercel.json declares. The official SDK client signs in through them (the test OpenID provider
 * standing in for GitHub or Google) and the MCP function accepts the token the oauth function signed.
 */

import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, test } from 'vitest';
// @ts-expect-error plain ESM helper without type declarations
import { loadBuiltFunction } from '../../scripts/load-built.mjs';
import { startLocalServer } from '../../scripts/local-server.js';
import { newSigningKey, PROVIDER_CLIENT } from '../support/authz-stack.js';
import { followToRedirect } from '../support/browser-leg.js';
import { freePort } from '../support/client-harness.js';
import { claimsOf, memoryProvider } from '../support/oauth-clients.js';
import { startOAuthServer, type OAuthServer } from '../support/oauth-server.js';

const REDIRECT = 'http://127.0.0.1:6276/oauth/callback';
let provider: OAuthServer;
let server: { url: string; close(): Promise<unknown> };

beforeAll(async () => {
  const port = await freePort();
  provider = await startOAuthServer({
    scopes: [], email: 'alice@example.com',
    clients: [{ client_id: PROVIDER_CLIENT.id, client_secret: PROVIDER_CLIENT.secret, redirect_uris: [`http://localhost:${port}/oauth/callback`], grant_types: ['authorization_code'], response_types: ['code'] }],
  });
  // The functions read the environment on their first request, as on Vercel; PORT pins their origin, as npm start does.
  Object.assign(process.env, {
    AUTH_SERVER_KEY: newSigningKey(), AUTH_SERVER_PROVIDER: 'oidc', AUTH_SERVER_OIDC_ISSUER: provider.issuer,
    AUTH_SERVER_CLIENT_ID: PROVIDER_CLIENT.id, AUTH_SERVER_CLIENT_SECRET: PROVIDER_CLIENT.secret, AUTH_SERVER_ALLOW: 'alice@example.com',
    AUTH_SCOPES: 'agents:chat', PORT: String(port),
  });
  const functions = Object.fromEntries(await Promise.all(['mcp', 'oauth', 'wk-oauth-protected-resource'].map(async (name) => {
    const fn = await loadBuiltFunction(`api/${name}`);
    return [`/api/${name}`, (request: Request) => fn.fetch(request)] as const;
  })));
  server = await startLocalServer({ port, functions });
}, 30_000);
afterAll(async () => {
  for (const name of Object.keys(process.env)) if (name.startsWith('AUTH_') || name === 'PORT') delete process.env[name];
  await server?.close();
  await provider?.close();
});

test('the SDK client signs in through the built api/oauth and calls the built api/mcp with its token', async () => {
  const oauth = memoryProvider({ redirect: REDIRECT });
  const url = new URL(`${server.url}/mcp`);
  const first = new StreamableHTTPClientTransport(url, { authProvider: oauth });
  await expect(new Client({ name: 'built', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(`${oauth.authorizationUrl!.origin}${oauth.authorizationUrl!.pathname}`).toBe(`${server.url}/oauth/authorize`);
  const callback = await followToRedirect(oauth.authorizationUrl!, REDIRECT);
  await first.finishAuth(callback.searchParams.get('code')!, callback.searchParams.get('iss') ?? undefined);
  expect(claimsOf(oauth.saved.tokens!.access_token)).toMatchObject({ iss: server.url, aud: url.href, sub: 'oidc:alice', scope: 'agents:chat' });
  const client = new Client({ name: 'built', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: oauth }));
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('chat_with_agent');
  await client.close();
});
