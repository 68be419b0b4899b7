/**
 * Test support: the built-in authorization server in front of the protected app (tools `whoami`, `admin_only`),
 * with the test OpenID provider (oauth-server.ts, oidc-provider) as the provider people sign in with: everyone
 * signs in there as `alice` with a verified alice@example.com. The functions (the usage page's too) run on one loopback port, as
 * vercel.json routes them, so the issuer is the server's own origin. The port is chosen first: the provider must
 * know our callback URL before it starts.
 */

import { createMcpHandler } from '../../api/mcp.js';
import type { App } from '../../lib/app.js';
import { createProtectedResourceHandler } from '../../lib/auth/metadata.js';
import { createAuthorizationServerHandler } from '../../lib/auth/authorization-server/handler.js';
import { createDiscoveryHandler } from '../../lib/discovery/documents.js';
import { createUsageFunction } from '../../lib/usage/page/function.js';
import { startLocalServer } from '../../scripts/local-server.js';
import { freePort } from './client-harness.js';
import { startGitHubStandIn, type GitHubPerson, type GitHubStandIn } from './github-stand-in.js';
import { startOAuthServer, type OAuthServer, type OAuthServerOptions } from './oauth-server.js';
import { createProtectedApp, SCOPE } from './protected-app.js';
import { newSigningKey } from './signing-key.js';

export const PROVIDER_CLIENT = { id: 'agent-mcp-at-provider', secret: 'provider-secret-for-tests' };

export { newSigningKey } from './signing-key.js';

export interface AuthzStack {
  /** The deployment's origin: the issuer. */
  origin: string;
  mcpUrl: string;
  /** The OpenID provider, or GitHub's stand-in when the stack signs in with GitHub. */
  provider: OAuthServer;
  github?: GitHubStandIn;
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface AuthzStackOptions {
  /** AUTH_SERVER_ALLOW (default alice@example.com). */
  allow?: string;
  /** The provider's options for who signs in. */
  person?: Pick<OAuthServerOptions, 'account' | 'email' | 'emailVerified'>;
  /** More variables, or overrides. */
  env?: Record<string, string>;
  key?: string;
  port?: number;
  /** Sign in with GitHub (its stand-in) as this person, instead of the OpenID provider. */
  github?: GitHubPerson;
  /** Another stack's OpenID provider, to share (a preview deployment signing in through production's app). */
  provider?: OAuthServer;
  /** The app behind /mcp (default: the protected app, createProtectedApp). */
  app?: (env: Record<string, string>) => App;
}

export async function startAuthzStack(options: AuthzStackOptions = {}): Promise<AuthzStack> {
  const port = options.port ?? await freePort();
  const origin = `http://localhost:${port}`;
  const provider = options.provider ?? await startOAuthServer({
    scopes: [],
    email: 'alice@example.com',
    ...options.person,
    clients: [{
      client_id: PROVIDER_CLIENT.id, client_secret: PROVIDER_CLIENT.secret, redirect_uris: [`${origin}/oauth/callback`],
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
    }],
  });
  const github = options.github && await startGitHubStandIn({ clientId: PROVIDER_CLIENT.id, clientSecret: PROVIDER_CLIENT.secret, callback: `${origin}/oauth/callback` }, options.github);
  const env: Record<string, string> = {
    AUTH_SERVER_KEY: options.key ?? newSigningKey(),
    ...(github ? { AUTH_SERVER_PROVIDER: 'github', AUTH_SERVER_GITHUB_URL: github.url } : { AUTH_SERVER_PROVIDER: 'oidc', AUTH_SERVER_OIDC_ISSUER: provider.issuer }),
    AUTH_SERVER_CLIENT_ID: PROVIDER_CLIENT.id,
    AUTH_SERVER_CLIENT_SECRET: PROVIDER_CLIENT.secret,
    AUTH_SERVER_ALLOW: options.allow ?? 'alice@example.com',
    AUTH_SCOPES: SCOPE,
    AUTH_SERVER_SCOPES: `${SCOPE} admin`,
    PORT: String(port),
    ...options.env,
  };
  const server = await startLocalServer({
    port,
    functions: {
      '/api/mcp': createMcpHandler((options.app ?? createProtectedApp)(env)),
      '/api/wk-oauth-protected-resource': createProtectedResourceHandler(env),
      '/api/oauth': createAuthorizationServerHandler(env),
      '/api/wk-mcp': createDiscoveryHandler(env),
      '/api/usage': createUsageFunction(env),
    },
  });
  return {
    origin,
    mcpUrl: `${server.url}/mcp`,
    provider,
    ...(github ? { github } : {}),
    env,
    close: async () => {
      await server.close();
      if (!options.provider) await provider.close();
      await github?.close();
    },
  };
}
