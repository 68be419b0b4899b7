/**
 * GET /oauth/authorize (OAuth 2.1 §4.1.1, MCP authorization §Authorization Code Protection, RFC 8707 §2, RFC
 * 9207). The client and its redirect URI are checked first: until both are known good, a problem is shown on a
 * page, never sent to the URI. After that a problem goes back to the client only if a person approved that client
 * and URI in this browser (approvals.ts), else it too is shown on a page (no open redirect). PKCE with S256
 * is required (`plain` and a missing challenge are refused); the `resource` must be this deployment's MCP URL
 * (the default when absent); scopes are those asked for that this server grants (AUTH_SCOPES when none is), and a
 * refresh token comes when the client asks for `offline_access` or registered for the refresh_token grant. The
 * request is then sealed into a cookie (pending.ts) and the consent page shown, unless this browser's person already
 * consented to the same client, redirect URI and resource for these scopes and it is still remembered
 * (remembered-consent.ts): then the browser goes straight to the provider's sign-in.
 */

import { MCP_PATHS, mcpUrl } from '../../http/public-url.js';
import { refuseAuthorization } from './approvals.js';
import { clientDigest, resolveClient } from './clients.js';
import { toProvider } from './consent.js';
import { consentPage } from './consent-page.js';
import type { Reached, ServerContext } from './context.js';
import { MAX_STATE_CHARS, newPendingId, PENDING_TTL_MS, pendingCookie, type Pending } from './pending.js';
import { matchesRedirectUri } from './redirect-uri.js';
import { isRemembered, personInBrowser } from './remembered-consent.js';
import { errorPage } from './replies.js';

const OFFLINE = 'offline_access';
/** A PKCE S256 challenge: the base64url SHA-256 of the verifier (RFC 7636 §4.2). */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export async function authorize(request: Request, ctx: ServerContext, reached: Reached): Promise<Response> {
  const { origin, secure } = reached;
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
  // Sized as it will be once approved (consent.ts, or by a person's remembered consent), so a request that fits now fits then.
  const cookie = await pendingCookie(ctx.keyring, pending, secure);
  if (!cookie || !(await pendingCookie(ctx.keyring, { ...pending, approved: true, person: '0'.repeat(64) }, secure))) {
    ctx.log.bounds.note('an authorization request too large for its cookie');
    return errorPage(400, 'This sign-in request is too large to continue (its redirect URI and state together).');
  }
  const person = await rememberedPerson(request, ctx, pending, requested, params.get('prompt'));
  if (person) return toProvider(ctx, { ...pending, approved: true, person }, reached, []);
  return consentPage({
    client, redirectUri, scopes: pending.scopes, offline: pending.offline, origin, resource: pending.resource, provider: ctx.signIn.name, pendingId: pending.id,
    rememberedMs: ctx.config.consentTtlMs,
  }, cookie);
}

/**
 * The person this browser signed in last, when a consent of theirs covering `pending` is remembered. `prompt=consent`
 * asks for the page, except beside `offline_access`: clients add it there for OpenID Connect Core §11, which lets a
 * server skip it when "other conditions for processing the request permitting offline access" hold, as a remembered
 * consent that allowed offline access does (this server is not an OpenID provider; the SDKs and Claude send it so).
 */
async function rememberedPerson(request: Request, ctx: ServerContext, pending: Pending, requested: string[], prompt: string | null): Promise<string | undefined> {
  if (ctx.config.consentTtlMs === 0) return undefined;
  if ((prompt ?? '').split(' ').includes('consent') && !requested.includes(OFFLINE)) return undefined;
  const person = await personInBrowser(ctx.keyring, request);
  if (!person) return undefined;
  const { client, redirectUri, resource, scopes, offline } = pending;
  return (await isRemembered(ctx.store, person, { client, redirectUri, resource, scopes, offline }, ctx.config.consentTtlMs)) ? person : undefined;
}
