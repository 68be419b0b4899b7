/**
 * The auth step of the request path: a bearer token becomes a verified principal, or the request is answered
 * with what a client needs to sign in (MCP authorization §Authorization Flow Steps, RFC 6750 §3, RFC 9728
 * §5.1). Built only when AUTH_ISSUER or AUTH_SERVER_KEY is set; jose loads with the first token.
 */

import { MCP_PATHS, publicOrigin, resourceMetadataUrl } from '../http/public-url.js';
import { refuse } from '../http/replies.js';
import { INSUFFICIENT_SCOPE } from '../protocol/errors.js';
import { H_RETRY_AFTER } from '../protocol/headers.js';
import type { Principal } from '../server/context.js';
import { bearerChallenge, challengeReply } from './challenge.js';
import { issuerFor, type AuthConfig } from './config.js';
import { createVerifier, type VerifyToken } from './verify.js';

export { describeAuth, issuerFor, readAuthConfig, requireAudienceSource, type AuthConfig } from './config.js';

type Env = Record<string, string | undefined>;

export interface BearerAuth {
  config: AuthConfig;
  /** The verified principal, or the 400/401/503 reply to send instead. */
  authenticate(request: Request): Promise<Principal | Response>;
  /** Headers for an error reply: the 403 step-up challenge of an insufficient-scope error, else none. */
  errorHeaders(request: Request, error: { code: number; data?: unknown }): Record<string, string> | undefined;
}

/** RFC 6750 §2.1: `Bearer` then a token68. */
const BEARER_SCHEME = /^Bearer(?:\s|$)/i;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const LOG_EVERY_MS = 60_000;

/** The MCP path a request reached, so its challenge names the metadata whose `resource` is that URL. */
function mcpPathOf(request: Request): string {
  const { pathname } = new URL(request.url);
  return (MCP_PATHS as readonly string[]).includes(pathname) ? pathname : MCP_PATHS[0];
}

/** The auth step for one configuration; `verify` is replaceable for tests. */
export function createBearerAuth(config: AuthConfig, env: Env = process.env, verify: VerifyToken = createVerifier(config)): BearerAuth {
  const metadataFor = (request: Request) => resourceMetadataUrl(publicOrigin(request, env), mcpPathOf(request));
  let loggedAt = -Infinity;

  return {
    config,
    async authenticate(request) {
      const base = { resourceMetadata: metadataFor(request), scopes: config.scopes };
      // RFC 6750 §2.3 allows a URI query token; OAuth 2.1 §5.2.1 and MCP authorization §Token Requirements forbid it.
      if (new URL(request.url).searchParams.has('access_token')) {
        return challengeReply({ ...base, error: 'invalid_request', description: 'Send the access token in the Authorization header, never in the URL.' });
      }
      const header = request.headers.get('authorization')?.trim() ?? '';
      if (!BEARER_SCHEME.test(header)) return challengeReply(base);
      const token = BEARER.exec(header)?.[1];
      if (!token) return challengeReply({ ...base, error: 'invalid_token', description: 'The Authorization header does not carry one bearer token.' });
      const origin = publicOrigin(request, env);
      const result = await verify(token, MCP_PATHS.map((path) => `${origin}${path}`), issuerFor(config, origin));
      if (result.ok) return result.principal;
      if ('description' in result) return challengeReply({ ...base, error: 'invalid_token', description: result.description });
      if (Date.now() - loggedAt > LOG_EVERY_MS) {
        loggedAt = Date.now();
        console.error(`[agent-mcp] auth: ${result.unavailable}`);
      }
      return refuse(503, 'Service Unavailable: the authorization server\'s keys cannot be fetched; try again shortly.', { [H_RETRY_AFTER]: '5' });
    },
    errorHeaders(request, error) {
      if (error.code !== INSUFFICIENT_SCOPE) return undefined;
      const { requiredScopes = [], grantedScopes = [] } = (error.data ?? {}) as { requiredScopes?: string[]; grantedScopes?: string[] };
      // MCP authorization §Scope Challenge Handling: name the needed scopes plus those granted, so a step-up keeps them.
      const scopes = [...new Set([...requiredScopes, ...grantedScopes])];
      const description = `This call needs the scope(s): ${requiredScopes.join(' ')}.`;
      return { 'www-authenticate': bearerChallenge({ resourceMetadata: metadataFor(request), scopes, error: 'insufficient_scope', description }) };
    },
  };
}
