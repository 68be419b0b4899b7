/**
 * The auth step of the request path: a bearer token becomes a verified principal, or the request is answered
 * with what a client needs to sign in (MCP authorization §Authorization Flow Steps, RFC 6750 §3, RFC 9728
 * §5.1). Built only when a sign-in mode is on (lib/auth/modes: AUTH_ISSUER, AUTH_SERVER_KEY, MCP_API_KEYS); jose loads
 * with the first JWT, node:crypto with the first API key. Which mode a token is for, lib/auth/verifier.ts decides.
 */

import { MCP_PATHS, publicOrigin, resourceMetadataUrl } from '../http/public-url.js';
import { MISCONFIGURED } from '../http/configured.js';
import { errorReply, refuse } from '../http/replies.js';
import { INSUFFICIENT_SCOPE, INTERNAL_ERROR } from '../protocol/errors.js';
import { H_RETRY_AFTER } from '../protocol/headers.js';
import type { Principal } from '../server/context.js';
import { bearerChallenge, challengeReply } from './challenge.js';
import { oauthOf, type ActiveMode } from './modes/index.js';
import { createBearerVerifier, type VerifyBearer } from './verifier.js';

export { issuerFor, readAuthConfig, readAuthScopes, requireAudienceSource, type AuthConfig } from './config.js';
export { readApiKeys, type ApiKeys } from './api-keys.js';
export { readSignIn, SIGN_IN_MODES, type ActiveMode, type SignInMode } from './modes/index.js';

type Env = Record<string, string | undefined>;

export interface BearerAuth {
  /** The sign-in modes on (lib/auth/modes), in table order. */
  modes: readonly ActiveMode[];
  /** The verified principal, or the 400/401/503 reply to send instead. */
  authenticate(request: Request): Promise<Principal | Response>;
  /** Headers for an error reply: the 403 step-up challenge of an insufficient-scope error, else none. */
  errorHeaders(request: Request, error: { code: number; data?: unknown }): Record<string, string> | undefined;
}

/** RFC 6750 §2.1: `Bearer` then a token68. */
const BEARER_SCHEME = /^Bearer(?:\s|$)/i;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const LOG_EVERY_MS = 60_000;

/** What a client without a credential is told to send, when there is no authorization server to point to. */
const KEY_PROMPT = 'Authorization required: send an API key as Authorization: Bearer <key>.';

/** What a caller must send, for the start-up log and `npm start`'s banner: each mode on, in its own words. */
export function describeAuth(auth: Pick<BearerAuth, 'modes'> | undefined): string {
  return auth?.modes.length ? auth.modes.map((m) => m.startup).join(' or ')
    : 'none (set AUTH_ISSUER for OAuth bearer tokens, AUTH_SERVER_KEY for the built-in authorization server, or MCP_API_KEYS for API keys)';
}

/** The MCP path a request reached, so its challenge names the metadata whose `resource` is that URL. */
function mcpPathOf(request: Request): string {
  const { pathname } = new URL(request.url);
  return (MCP_PATHS as readonly string[]).includes(pathname) ? pathname : MCP_PATHS[0];
}

/**
 * The auth step for the modes on (readSignIn); `verify` is replaceable for tests. Without a mode whose tokens an
 * authorization server issues (API keys alone), a challenge names no metadata: there is nowhere to sign in, and the
 * protected resource metadata is not served (lib/auth/metadata.ts).
 */
export function createBearerAuth(
  modes: readonly ActiveMode[],
  env: Env = process.env,
  verify: VerifyBearer = createBearerVerifier(modes),
): BearerAuth {
  if (modes.length === 0) throw new TypeError('Bearer auth needs AUTH_ISSUER, AUTH_SERVER_KEY or MCP_API_KEYS.');
  const config = oauthOf(modes);
  const metadataFor = (request: Request) => config && resourceMetadataUrl(publicOrigin(request, env), mcpPathOf(request));
  let loggedAt = -Infinity;

  return {
    modes,
    async authenticate(request) {
      const base = config
        ? { resourceMetadata: metadataFor(request), scopes: config.scopes }
        : { scopes: [], prompt: KEY_PROMPT };
      // RFC 6750 §2.3 allows a URI query token; OAuth 2.1 §5.2.1 and MCP authorization §Token Requirements forbid it.
      if (new URL(request.url).searchParams.has('access_token')) {
        return challengeReply({ ...base, error: 'invalid_request', description: 'Send the access token in the Authorization header, never in the URL.' });
      }
      const header = request.headers.get('authorization')?.trim() ?? '';
      if (!BEARER_SCHEME.test(header)) return challengeReply(base);
      const token = BEARER.exec(header)?.[1];
      if (!token) return challengeReply({ ...base, error: 'invalid_token', description: 'The Authorization header does not carry one bearer token.' });
      const origin = publicOrigin(request, env);
      const result = await verify(token, { audiences: MCP_PATHS.map((path) => `${origin}${path}`), origin });
      if (result.ok) return result.principal;
      if ('description' in result) return challengeReply({ ...base, error: 'invalid_token', description: result.description });
      if (Date.now() - loggedAt > LOG_EVERY_MS) {
        loggedAt = Date.now();
        console.error(`[agent-mcp] auth: ${'misconfigured' in result ? result.misconfigured : result.unavailable}`);
      }
      // A retry cannot fix a misconfigured issuer: the caller is told so, and the log (above) says what to change.
      if ('misconfigured' in result) return errorReply(500, { code: INTERNAL_ERROR, message: MISCONFIGURED });
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
