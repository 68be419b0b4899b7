/**
 * Test support: a real OAuth 2.1 / OpenID authorization server on loopback (oidc-provider), issuing JWT access
 * tokens for a resource (RFC 8707 resource indicators), with dynamic client registration and PKCE. Its
 * login and consent step approves at once as `alice`, so the official client's flow runs headlessly.
 */

import { createServer } from 'node:http';
import * as jose from 'jose';
import Provider from 'oidc-provider';

export interface OAuthServer {
  issuer: string;
  close(): Promise<void>;
}

export async function startOAuthServer(options: { scope: string; account?: string }): Promise<OAuthServer> {
  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(privateKey)), kid: 'as-1', alg: 'RS256', use: 'sig' };
  let provider: Provider | undefined;

  const server = createServer(async (req, res) => {
    if (req.url?.startsWith('/interaction/')) return approve(provider!, req, res, options.account ?? 'alice');
    provider!.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://localhost:${(server.address() as { port: number }).port}`;

  provider = new Provider(issuer, {
    jwks: { keys: [jwk as jose.JWK & { kty: 'RSA' }] },
    clientBasedCORS: () => true,
    pkce: { required: () => true },
    scopes: ['openid', options.scope],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resourceIndicator: string) => ({
          scope: options.scope,
          audience: resourceIndicator,
          accessTokenTTL: 600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
  });
  provider.on('server_error', (_ctx: unknown, error: unknown) => console.error('[oauth-server]', error));

  return { issuer, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The login and consent prompts, approved without a user: log in as `account`, grant what was asked. */
async function approve(provider: Provider, req: Parameters<Provider['interactionDetails']>[0], res: Parameters<Provider['interactionDetails']>[1], account: string) {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    return provider.interactionFinished(req, res, { login: { accountId: account } }, { mergeWithLastSubmission: false });
  }
  const grant = details.grantId
    ? (await provider.Grant.find(details.grantId))!
    : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
  const grantId = await grant.save();
  return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}
