/**
 * Test support: a real OAuth 2.1 / OpenID authorization server on loopback (oidc-provider), issuing JWT access
 * tokens for a resource (RFC 8707 resource indicators), with dynamic client registration (RFC 7591) and PKCE.
 * Its login and consent step approves at once, as `alice`, exactly the scopes asked for, so the official
 * client's flow (and a step-up to more scopes) runs headlessly. Dynamic registration ignores a requested `scope`.
 *
 * It accepts what real MCP clients register: the Inspector, mcp-remote and the SDK's default metadata ask for
 * `grant_types: ["authorization_code", "refresh_token"]`, which oidc-provider refuses ("grant_types can only
 * contain 'implicit' or 'authorization_code'") unless refresh tokens are configured. They are: `offline_access`
 * is a supported scope, and every client registered for the refresh_token grant gets a refresh token, because
 * MCP clients do not send `prompt=consent`, without which oidc-provider drops `offline_access` from a request.
 */

import { createServer, type IncomingMessage } from 'node:http';
import * as jose from 'jose';
import Provider from 'oidc-provider';
import { idJagSigner, registerIdJagExchange, type IdJagPolicy, type SignIdJag } from './id-jag-exchange.js';

export interface OAuthServer {
  issuer: string;
  /** Mints an ID-JAG signed with this provider's key (with `idJag`): id-jag-exchange.ts. */
  signIdJag: SignIdJag;
  close(): Promise<void>;
}

const TTL_SEC = 600;
const REFRESH_TTL_SEC = 86_400;

export interface OAuthServerOptions {
  scopes: string[];
  /** Who every sign-in is (default `alice`), and the email it has (verified unless `emailVerified` is false). */
  account?: string;
  email?: string;
  emailVerified?: boolean;
  port?: number;
  /** Clients registered in advance (an upstream provider's app, as the built-in authorization server is one). */
  clients?: Array<Record<string, unknown>>;
  /** Be an enterprise identity provider too: issue ID-JAGs by token exchange (id-jag-exchange.ts). */
  idJag?: IdJagPolicy;
}

export async function startOAuthServer(options: OAuthServerOptions): Promise<OAuthServer> {
  const { privateKey, publicKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(privateKey)), kid: 'as-1', alg: 'RS256', use: 'sig' };
  let provider: Provider | undefined;

  const server = createServer(async (req, res) => {
    if (req.url?.startsWith('/interaction/')) return approve(provider!, req, res, options.account ?? 'alice');
    if (req.method === 'POST' && req.url === '/reg') await dropRegisteredScope(req);
    provider!.callback()(req, res);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port ?? 0, '127.0.0.1', resolve));
  // The SDK accepts plain http for an authorization server on localhost only.
  const issuer = `http://localhost:${(server.address() as { port: number }).port}`;

  provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    clientBasedCORS: () => true,
    pkce: { required: () => true },
    scopes: ['openid', 'offline_access', 'email', ...options.scopes],
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    ttl: {
      AccessToken: TTL_SEC, AuthorizationCode: 60, Grant: REFRESH_TTL_SEC, Interaction: TTL_SEC, Session: TTL_SEC,
      RefreshToken: REFRESH_TTL_SEC,
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resourceIndicator: string) => ({
          scope: options.scopes.join(' '),
          audience: resourceIndicator,
          accessTokenTTL: TTL_SEC,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    clients: options.clients ?? [],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({ sub: id, ...(options.email ? { email: options.email, email_verified: options.emailVerified ?? true } : {}) }),
    }),
  });
  const signIdJag = idJagSigner(issuer, privateKey, jwk.kid, jwk.alg);
  if (options.idJag) registerIdJagExchange(provider, issuer, publicKey, signIdJag, options.idJag);
  provider.on('server_error', (_ctx: unknown, error: unknown) => console.error('[oauth-server]', error));

  return { issuer, signIdJag, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * The SDK registers a client with the scope of the first challenge; oidc-provider would then refuse that
 * client any other scope, so a step-up could never succeed. Like many hosted servers, this one treats the
 * registered scope as informative: the body is read here and handed on parsed, without `scope`.
 */
async function dropRegisteredScope(req: IncomingMessage & { body?: unknown }) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const { scope: _scope, ...metadata } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  req.body = metadata;
}

type Req = Parameters<Provider['interactionDetails']>[0];
type Res = Parameters<Provider['interactionDetails']>[1];

/** The login and consent prompts, approved without a user: log in as `account`, grant what was asked. */
async function approve(provider: Provider, req: Req, res: Res, account: string) {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    return provider.interactionFinished(req, res, { login: { accountId: account } }, { mergeWithLastSubmission: false });
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
  const grantId = await grant.save();
  return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}
