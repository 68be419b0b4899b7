/**
 * The whole sign-in, as Claude, Cursor or the Inspector do it, against a real authorization server
 * (oidc-provider on loopback): the official SDK v2 client reads our 401 challenge, fetches our protected
 * resource metadata, discovers the authorization server, registers itself (dynamic registration), runs the
 * authorization code flow with PKCE for our resource (RFC 8707), and calls a tool with the JWT it got. A tool
 * that needs more makes it step up on our 403 (MCP authorization §Scope Challenge Handling).
 */

import { auth, Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createProtectedResourceHandler } from '../../lib/auth/metadata.js';
import { startLocalServer } from '../../scripts/local-server.js';
import { followToRedirect } from '../support/browser-leg.js';
import { memoryProvider, type MemoryProvider } from '../support/oauth-clients.js';
import { startOAuthServer, type OAuthServer } from '../support/oauth-server.js';
import { createProtectedApp, SCOPE } from '../support/protected-app.js';

/** The Inspector's CLI callback (mcp-spec.md §4.3); nothing listens there: the test plays the browser. */
const REDIRECT = 'http://127.0.0.1:6276/oauth/callback';
let as: OAuthServer;
let mcp: { url: string; close(): Promise<void> };

beforeAll(async () => {
  as = await startOAuthServer({ scopes: [SCOPE, 'admin'] });
  const env = { AUTH_ISSUER: as.issuer, AUTH_SCOPES: SCOPE };
  mcp = await startLocalServer({
    port: 0,
    functions: { '/api/mcp': createMcpHandler(createProtectedApp(env)), '/api/wk-oauth-protected-resource': createProtectedResourceHandler(env) },
  });
}, 30_000);
afterAll(async () => {
  await mcp?.close();
  await as?.close();
});

async function signIn(provider: MemoryProvider, transport: StreamableHTTPClientTransport) {
  const callback = (await followToRedirect(provider.authorizationUrl!, provider.redirectUrl as string)).searchParams;
  expect([callback.get('error'), callback.get('error_description')]).toEqual([null, null]);
  await transport.finishAuth(callback.get('code')!, callback.get('iss') ?? undefined);
}

const scopesOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).scope as string).split(' ').sort();

/** Vercel Deployment Protection in front of every function: 401 unless the bypass header is sent. */
function protect(handler: (request: Request) => Promise<Response>, secret: string) {
  return (request: Request) => request.headers.get('x-vercel-protection-bypass') === secret
    ? handler(request)
    : Promise.resolve(new Response('Authentication Required', { status: 401, headers: { 'content-type': 'text/html' } }));
}

describe('the official SDK v2 client against a real authorization server', () => {
  test.each(['/mcp', '/api/mcp'])('signs in at %s through the 401 challenge, then calls a tool with the issued token; a tool needing more scope makes it step up', async (path) => {
    const provider = memoryProvider({ redirect: REDIRECT });
    const url = new URL(`${mcp.url}${path}`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);

    // Discovery from the challenge: our metadata sent it to the issuer, for our exact resource, with PKCE.
    const asked = provider.authorizationUrl!;
    expect(asked.origin).toBe(as.issuer);
    expect(asked.searchParams.get('resource')).toBe(url.href);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('scope')).toBe(SCOPE);
    expect(provider.clientInformation()).toMatchObject({ client_id: expect.any(String) });

    await signIn(provider, first);
    const token = (await provider.tokens())!.access_token;
    expect(scopesOf(token)).toEqual([SCOPE]);

    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    await client.connect(transport);
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ subject: 'alice', scopes: [SCOPE] });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);

    // Step-up: our 403 names admin plus the granted scope; the client asks for the union and retries.
    await expect(client.callTool({ name: 'admin_only', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl!.searchParams.get('scope')!.split(' ').sort()).toEqual(['admin', SCOPE].sort());
    await signIn(provider, transport);
    expect(scopesOf((await provider.tokens())!.access_token)).toEqual(['admin', SCOPE].sort());
    expect((await client.callTool({ name: 'admin_only', arguments: {} })).content).toEqual([{ type: 'text', text: 'ok' }]);
    await client.close();
  }, 30_000);

  test('a client registering for refresh tokens, as the Inspector and mcp-remote do, is accepted, and its refresh token renews access', async () => {
    const provider = memoryProvider({ redirect: REDIRECT, metadata: 'sdk-default' });
    const url = new URL(`${mcp.url}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: 'refresh', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.clientInformation()).toMatchObject({ grant_types: ['authorization_code', 'refresh_token'] });

    await signIn(provider, first);
    const issued = (await provider.tokens())!;
    expect(issued.refresh_token).toEqual(expect.any(String));

    // With a refresh token at hand, the SDK renews through the token endpoint instead of a new browser sign-in.
    expect(await auth(provider, { serverUrl: url })).toBe('AUTHORIZED');
    const renewed = (await provider.tokens())!;
    expect(renewed.access_token).not.toBe(issued.access_token);
    expect(scopesOf(renewed.access_token)).toEqual([SCOPE]);
    const client = new Client({ name: 'refresh', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ subject: 'alice' });
    await client.close();
  }, 30_000);

  test('behind Deployment Protection, the bypass header the client sends with every request (metadata included) lets OAuth run', async () => {
    const secret = 'bypass-secret-for-tests';
    const env = { AUTH_ISSUER: as.issuer, AUTH_SCOPES: SCOPE };
    const preview = await startLocalServer({
      port: 0,
      functions: {
        '/api/mcp': protect(createMcpHandler(createProtectedApp(env)), secret),
        '/api/wk-oauth-protected-resource': protect(createProtectedResourceHandler(env), secret),
      },
    });
    try {
      const provider = memoryProvider({ redirect: REDIRECT });
      const url = new URL(`${preview.url}/mcp`);
      const options = { authProvider: provider, requestInit: { headers: { 'x-vercel-protection-bypass': secret } } };
      const first = new StreamableHTTPClientTransport(url, options);
      await expect(new Client({ name: 'preview', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.authorizationUrl!.searchParams.get('resource')).toBe(url.href);
      await signIn(provider, first);
      const client = new Client({ name: 'preview', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, options));
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
      await client.close();
    } finally {
      await preview.close();
    }
  }, 30_000);
});
