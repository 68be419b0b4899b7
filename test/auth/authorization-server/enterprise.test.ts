/**
 * Enterprise sign-in (MCP Enterprise-Managed Authorization): the official client's cross-app access runs the whole
 * exchange against a real enterprise identity provider on loopback (the test OpenID provider, oidc-provider, which
 * also issues ID-JAGs by RFC 8693 token exchange: test/support/id-jag-exchange.ts): single sign-on there, the ID-JAG
 * for our issuer and MCP URL, the JWT bearer grant at the built-in server, and calls with the token. The person ends
 * as the same principal the browser sign-in through the same provider gives.
 */

import { Client, CrossAppAccessProvider, discoverAndRequestJwtAuthGrant, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDefaultApp } from '../../../lib/app.js';
import { codeFor, register, tokenRequest } from '../../support/authz-client.js';
import type { AuthzStack } from '../../support/authz-stack.js';
import { AT_IDP, CONFIDENTIAL, startEnterpriseStack, type EnterpriseStack } from '../../support/enterprise-stack.js';
import { signInAtIdp } from '../../support/id-jag-exchange.js';
import { claimsOf } from '../../support/oauth-clients.js';
import type { OAuthServer } from '../../support/oauth-server.js';
import { PROTECTED_TOOLS, SCOPE } from '../../support/protected-app.js';

const REDIRECT = 'http://127.0.0.1:6276/oauth/callback';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let enterprise: EnterpriseStack;
let idp: OAuthServer;
let stack: AuthzStack;

beforeAll(async () => {
  enterprise = await startEnterpriseStack({ app: (env) => createDefaultApp(env, { tools: [PROTECTED_TOOLS[0]!] }) });
  ({ idp, stack } = enterprise);
}, 30_000);
afterAll(() => enterprise?.close());

type ToolClient = { callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown> };
const textOf = async (client: ToolClient, name: string, args: Record<string, unknown> = {}) =>
  ((await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }> }).content[0]!.text;

/** The official client's cross-app access provider: the ID-JAG from the identity provider for whatever our server asks. */
function crossAppAccess(idToken: string, seen: { assertions: number } = { assertions: 0 }) {
  return new CrossAppAccessProvider({
    clientId: CONFIDENTIAL.id,
    clientSecret: CONFIDENTIAL.secret,
    expectedIssuer: stack.origin,
    assertion: async (ctx) => {
      seen.assertions += 1;
      const { jwtAuthGrant } = await discoverAndRequestJwtAuthGrant({
        idpUrl: idp.issuer, audience: ctx.authorizationServerUrl, resource: ctx.resourceUrl, idToken,
        clientId: AT_IDP.id, clientSecret: AT_IDP.secret, scope: ctx.scope, fetchFn: ctx.fetchFn,
      });
      return jwtAuthGrant;
    },
  });
}

describe('enterprise sign-in with the official client', () => {
  test('the built-in server advertises the JWT bearer grant of the id-jag profile', async () => {
    const metadata = await (await fetch(`${stack.origin}/.well-known/oauth-authorization-server`)).json() as Record<string, string[]>;
    expect(metadata.grant_types_supported).toContain(JWT_BEARER);
    expect(metadata.authorization_grant_profiles_supported).toEqual(['urn:ietf:params:oauth:grant-profile:id-jag']);
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_basic', 'client_secret_post']);
  });

  test('single sign-on at the identity provider, its ID-JAG for our issuer and MCP URL, the JWT bearer grant here with the client secret (HTTP Basic), then a chat_with_agent call: no consent page, no refresh token', async () => {
    const idToken = await signInAtIdp(idp.issuer, AT_IDP);
    const seen = { assertions: 0 };
    const provider = crossAppAccess(idToken, seen);
    const tokenRequests: Array<{ authorization: string | null; body: URLSearchParams }> = [];
    const recording: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/oauth/token')) tokenRequests.push({ authorization: new Headers(init?.headers).get('authorization'), body: new URLSearchParams(String(init?.body)) });
      return fetch(input, init);
    };
    const client = new Client({ name: 'enterprise', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(stack.mcpUrl), { authProvider: provider, fetch: recording }));
    expect(seen.assertions).toBe(1);
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]!.authorization).toBe(`Basic ${Buffer.from(`${CONFIDENTIAL.id}:${CONFIDENTIAL.secret}`).toString('base64')}`);
    expect(tokenRequests[0]!.body.get('grant_type')).toBe(JWT_BEARER);

    const tokens = provider.tokens()!;
    expect(tokens.refresh_token).toBeUndefined();
    expect(claimsOf(tokens.access_token)).toMatchObject({ iss: stack.origin, aud: stack.mcpUrl, sub: 'oidc:alice', client_id: CONFIDENTIAL.id });
    expect(await textOf(client, 'chat_with_agent', { message: 'hello from the enterprise' })).toContain('hello from the enterprise');
    expect(JSON.parse(await textOf(client, 'whoami'))).toMatchObject({ kind: 'authorization-server', subject: 'oidc:alice', clientId: CONFIDENTIAL.id });
    await client.close();
  }, 30_000);

  test('the principal is the one the browser sign-in through the same provider gives', async () => {
    const viaBrowser = (await register(stack.origin, { redirect_uris: [REDIRECT] })).body.client_id as string;
    const { code, verifier } = await codeFor(stack.origin, viaBrowser, REDIRECT);
    const browser = await tokenRequest(stack.origin, { grant_type: 'authorization_code', code: code!, code_verifier: verifier, client_id: viaBrowser, redirect_uri: REDIRECT });
    const enterprise = crossAppAccess(await signInAtIdp(idp.issuer, AT_IDP));

    const whoami = async (authProvider: ConstructorParameters<typeof StreamableHTTPClientTransport>[1] extends infer O ? O : never) => {
      const client = new Client({ name: 'who', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(stack.mcpUrl), authProvider));
      const { kind, subject, scopes } = JSON.parse(await textOf(client, 'whoami')) as Record<string, unknown>;
      await client.close();
      return { kind, subject, scopes };
    };
    const byBrowser = await whoami({ requestInit: { headers: { authorization: `Bearer ${browser.body.access_token as string}` } } });
    expect(byBrowser).toEqual({ kind: 'authorization-server', subject: 'oidc:alice', scopes: [SCOPE] });
    expect(await whoami({ authProvider: enterprise })).toEqual(byBrowser);
  }, 30_000);
});
