/**
 * Test support: the built-in authorization server with enterprise sign-in (AUTH_ENTERPRISE_IDPS) in front of an app,
 * and the enterprise identity provider beside it: the test OpenID provider, which signs people in (as alice, for the
 * browser sign-in here and for single sign-on at the MCP client alike) and issues ID-JAGs by token exchange
 * (id-jag-exchange.ts). Its entry lists a confidential client (CONFIDENTIAL, with a secret) and a public one.
 */

import { createHash } from 'node:crypto';
import type { App } from '../../lib/app.js';
import { PROVIDER_CLIENT, startAuthzStack, type AuthzStack } from './authz-stack.js';
import { freePort } from './client-harness.js';
import { idpClientRegistration, type IdpClient } from './id-jag-exchange.js';
import { startOAuthServer, type OAuthServer } from './oauth-server.js';
import { SCOPE } from './protected-app.js';

/** The MCP client at the identity provider (for single sign-on and token exchange). */
export const AT_IDP: IdpClient = { id: 'mcp-client-at-idp', secret: 'idp-secret-for-tests', redirect: 'http://127.0.0.1:7788/sso/callback' };
/** Its id and secret at our server, as the operator registered it in AUTH_ENTERPRISE_IDPS (and the IdP maps it). */
export const CONFIDENTIAL = { id: 'enterprise-mcp-client', secret: 'a-secret-the-operator-gave-the-client' };
/** A public client of the entry (`none`): a Client ID Metadata Document URL. */
export const PUBLIC_CLIENT = 'https://client.example/oauth/metadata.json';
export const ENTRY_SCOPES = [SCOPE, 'admin'];

export interface EnterpriseStack {
  idp: OAuthServer;
  stack: AuthzStack;
  close(): Promise<void>;
}

export async function startEnterpriseStack(options: { app?: (env: Record<string, string>) => App; env?: Record<string, string> } = {}): Promise<EnterpriseStack> {
  const port = await freePort();
  const idp = await startOAuthServer({
    scopes: [],
    email: 'alice@example.com',
    clients: [
      { client_id: PROVIDER_CLIENT.id, client_secret: PROVIDER_CLIENT.secret, redirect_uris: [`http://localhost:${port}/oauth/callback`], grant_types: ['authorization_code'], response_types: ['code'] },
      idpClientRegistration(AT_IDP),
    ],
    idJag: { clientIds: { [AT_IDP.id]: CONFIDENTIAL.id } },
  });
  const entry = {
    issuer: idp.issuer,
    clients: [{ id: CONFIDENTIAL.id, sha256: createHash('sha256').update(CONFIDENTIAL.secret).digest('hex') }, PUBLIC_CLIENT],
    scopes: ENTRY_SCOPES,
  };
  const stack = await startAuthzStack({
    port,
    provider: idp,
    env: { AUTH_ENTERPRISE_IDPS: JSON.stringify([entry]), ...options.env },
    ...(options.app ? { app: options.app } : {}),
  });
  return { idp, stack, close: async () => { await stack.close(); await idp.close(); } };
}
