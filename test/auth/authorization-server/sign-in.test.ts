/**
 * The official SDK clients sign in through the built-in authorization server, with the test OpenID provider
 * standing in for Google or GitHub: each reads our 401 challenge and protected-resource metadata, finds the
 * built-in server at the deployment's own origin, registers itself, is shown the consent page (the test approves
 * it as a person would), signs in at the provider as alice, exchanges the code with PKCE, and calls a tool.
 */

import { auth, Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError as UnauthorizedV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAuthzStack, type AuthzStack } from '../../support/authz-stack.js';
import { followToRedirect } from '../../support/browser-leg.js';
import { claimsOf, memoryProvider, type MemoryProvider } from '../../support/oauth-clients.js';
import { SCOPE } from '../../support/protected-app.js';

const REDIRECT = 'http://127.0.0.1:6276/oauth/callback';
let stack: AuthzStack;

beforeAll(async () => { stack = await startAuthzStack(); }, 30_000);
afterAll(() => stack?.close());

/** The browser leg: the consent page approved, the provider's sign-in; the client's callback URL. */
async function browse(provider: MemoryProvider, pages: string[] = []) {
  const callback = await followToRedirect(provider.authorizationUrl!, REDIRECT, { pages });
  expect([callback.searchParams.get('error'), callback.searchParams.get('error_description')]).toEqual([null, null]);
  return callback;
}

const whoami = async (client: { callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown> }) =>
  JSON.parse(((await client.callTool({ name: 'whoami', arguments: {} })) as { content: Array<{ text: string }> }).content[0]!.text);

describe('the SDK v2 client and the built-in authorization server', () => {
  test('it signs in through the consent page and the provider, with PKCE for our resource, and calls a tool as oidc:alice; a tool needing more makes it step up', async () => {
    const provider = memoryProvider({ redirect: REDIRECT });
    const url = new URL(stack.mcpUrl);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: 'v2', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);

    const asked = provider.authorizationUrl!;
    expect(`${asked.origin}${asked.pathname}`).toBe(`${stack.origin}/oauth/authorize`);
    expect(asked.searchParams.get('resource')).toBe(url.href);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    const pages: string[] = [];
    const callback = await browse(provider, pages);
    expect(pages[0]).toContain('agent-mcp test client');
    expect(callback.searchParams.get('iss')).toBe(stack.origin);
    await first.finishAuth(callback.searchParams.get('code')!, callback.searchParams.get('iss') ?? undefined);
    const token = provider.saved.tokens!.access_token;
    expect(claimsOf(token)).toMatchObject({ iss: stack.origin, aud: url.href, sub: 'oidc:alice', scope: SCOPE });

    const client = new Client({ name: 'v2', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await client.connect(transport);
    expect(await whoami(client)).toMatchObject({ subject: 'oidc:alice', scopes: [SCOPE] });

    await expect(client.callTool({ name: 'admin_only', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl!.searchParams.get('scope')!.split(' ').sort()).toEqual(['admin', SCOPE].sort());
    const stepped = await browse(provider);
    await transport.finishAuth(stepped.searchParams.get('code')!, stepped.searchParams.get('iss') ?? undefined);
    expect((claimsOf(provider.saved.tokens!.access_token).scope as string).split(' ').sort()).toEqual(['admin', SCOPE].sort());
    expect((await client.callTool({ name: 'admin_only', arguments: {} })).content).toEqual([{ type: 'text', text: 'ok' }]);
    await client.close();
  }, 30_000);

  test('a client registered for refresh tokens gets one and renews with it without a browser, getting a new refresh token each time', async () => {
    const provider = memoryProvider({ redirect: REDIRECT, metadata: 'sdk-default' });
    const url = new URL(stack.mcpUrl);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: 'refresh', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    const callback = await browse(provider);
    await first.finishAuth(callback.searchParams.get('code')!, callback.searchParams.get('iss') ?? undefined);
    const issued = provider.saved.tokens!;
    expect(issued.refresh_token).toMatch(/^amcp_rt_/);

    expect(await auth(provider, { serverUrl: url })).toBe('AUTHORIZED');
    const renewed = provider.saved.tokens!;
    expect(renewed.access_token).not.toBe(issued.access_token);
    expect(renewed.refresh_token).not.toBe(issued.refresh_token);
    const client = new Client({ name: 'refresh', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    expect(await whoami(client)).toMatchObject({ subject: 'oidc:alice' });
    await client.close();
  }, 30_000);
});

describe('the SDK v1 client and the built-in authorization server', () => {
  test('it registers, signs in through the consent page and the provider, and calls a tool as oidc:alice', async () => {
    const provider = memoryProvider({ redirect: REDIRECT, metadata: 'sdk-default', name: 'v1 client' });
    const url = new URL(stack.mcpUrl);
    const first = new TransportV1(url, { authProvider: provider as never });
    await expect(new ClientV1({ name: 'v1', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedV1);
    expect(provider.authorizationUrl!.origin).toBe(stack.origin);
    const callback = await browse(provider);
    await first.finishAuth(callback.searchParams.get('code')!);
    const client = new ClientV1({ name: 'v1', version: '1.0.0' });
    await client.connect(new TransportV1(url, { authProvider: provider as never }));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
    expect(await whoami(client)).toMatchObject({ subject: 'oidc:alice', scopes: [SCOPE] });
    await client.close();
  }, 30_000);
});
