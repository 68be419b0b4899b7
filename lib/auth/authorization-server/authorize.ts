/**
 * GET /oauth/authorize (OAuth 2.1 §4.1.1, MCP authorization §Authorization Code Protection, RFC 8707 §2, RFC
 * 9207). The client and its redirect URI are checked first: until both are known good, a problem is shown on a
 * page, never sent to the URI. After that a problem goes back to the client only if a person approved that client
 * and URI in this browser (approvals.ts), else it too is shown on a page (no open redirect). PKCE with S256
 * is required (`plain` and a missing challenge are refused); the `resource` must be this deployment's MCP URL
 * (the default when absent); scopes are those asked for that this server grants (AUTH_SCOPES when none is), and a
 * refresh token comes when the client asks for `offline_access` or registered for the refresh_token grant. The
 * request is then sealed into a cookie (pending.ts) and the consent page shown: consent is asked every time.
 */

import { MCP_PATHS, mcpUrl } from '../../http/public-url.js';
import { refuseAuthorization } from './approvals.js';
import { clientDigest, resolveClient } from './clients.js';
import { consentPage } from './consent-page.js';
import type { Reached, ServerContext } from './context.js';
import { MAX_STATE_CHARS, newPendingId, PENDING_TTL_MS, pendingCookie, type Pending } from './pending.js';
import { matchesRedirectUri } from './redirect-uri.js';
import { errorPage } from './replies.js';

const OFFLINE = 'offline_access';
/** A PKCE S256 challenge: the base64url SHA-256 of the verifier (RFC 7636 §4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export async function authorize(request: Request, ctx: ServerContext, { origin, secure }: Reached): Promise<Response> {
  const params = new URL(request.url).searchParams;
  const clientId = params.get('client_id');
  if (!clientId) return errorPage(400, 'The request names no client (client_id).');
  const resolved = await resolveClient(clientId, { keyring: ctx.keyring, store: ctx.store, local: ctx.config.local });
  if (!resolved.ok) {
    // The id is the client's string: quoted, cut, never a line of its own in the log.
    if (resolved.document) ctx.log.bounds.note(`client ${JSON.stringify(clientId.slice(0, 200))}: ${resolved.reason}`);
    return errorPage(400, resolved.reason);
  }
  const { client } = resolved;
  const asked = params.get('redirect_uri');
  if (asked === null && client.redirectUris.length !== 1) return errorPage(400, 'The request must name its redirect URI: this client registered several.');
  const redirectUri = asked ?? client.redirectUris[0]!;
  if (!matchesRedirectUri(client.redirectUris, redirectUri)) return errorPage(400, 'The redirect URI is not one this client registered.');
  const state = params.get('state') ?? undefined;
  if (state !== undefined && state.length > MAX_STATE_CHARS) {
    ctx.log.bounds.note(`a state of ${state.length} characters`);
    return errorPage(400, `The request's state is longer than ${MAX_STATE_CHARS} characters.`);
  }

  const fail = (error: string, description: string) =>
    refuseAuthorization(ctx.keyring, request, { client: clientDigest(client.id), redirectUri, state, origin, error, description });
  if (params.get('response_type') !== 'code') return fail('unsupported_response_type', 'This server issues authorization codes only (response_type=code).');
  const challenge = params.get('code_challenge');
  if (!challenge) return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
  if (params.get('code_challenge_method') !== 'S256') return fail('invalid_request', 'Only the S256 PKCE method is accepted (code_challenge_method=S256).');
  if (!S256_CHALLENGE.test(challenge)) return fail('invalid_request', 'The code_challenge is not an S256 challenge (43 base64url characters).');
  const resources = params.getAll('resource');
  const ours = MCP_PATHS.map((path) => mcpUrl(origin, path));
  if (resources.length > 1 || (resources.length === 1 && !ours.includes(resources[0]!))) {
    return fail('invalid_target', `This server issues tokens only for its MCP endpoint, ${mcpUrl(origin)}.`);
  }
  if (params.get('prompt') === 'none') return fail('login_required', 'Signing in here always asks the person.');

  const requested = (params.get('scope') ?? '').split(' ').filter(Boolean);
  const granted = requested.filter((scope) => ctx.config.scopes.includes(scope));
  const pending: Pending = {
    id: newPendingId(),
    client: clientDigest(client.id),
    redirectUri,
    redirectGiven: asked !== null,
    ...(state !== undefined ? { state } : {}),
    codeChallenge: challenge,
    scopes: granted.length ? [...new Set(granted)] : ctx.config.defaultScopes,
    resource: resources[0] ?? ours[0]!,
    offline: requested.includes(OFFLINE) || client.refresh,
    expiresAt: Date.now() + PENDING_TTL_MS,
  };
  // Sized as it will be once approved (consent.ts), so a request that fits now fits then.
  const cookie = await pendingCookie(ctx.keyring, pending, secure);
  if (!cookie || !(await pendingCookie(ctx.keyring, { ...pending, approved: true }, secure))) {
    ctx.log.bounds.note('an authorization request too large for its cookie');
    return errorPage(400, 'This sign-in request is too large to continue (its redirect URI and state together).');
  }
  return consentPage({
    client, redirectUri, scopes: pending.scopes, offline: pending.offline, origin, resource: pending.resource, provider: ctx.signIn.name, pendingId: pending.id,
  }, cookie);
}
