/**
 * POST /oauth/revoke (RFC 7009): a refresh token revokes its whole family. Access tokens are short-lived JWTs
 * that no list is checked for: revoking one is accepted and changes nothing (§2.2 allows it) until it expires,
 * within 15 minutes. Either token, issued to the client that sends it, also revokes the grant beneath it (§2: "the
 * underlying authorization grant"): the person's remembered consent to that client (remembered-consent.ts), so its
 * next sign-in shows the consent page again. That is how an app's "disconnect" or "sign out" withdraws the consent,
 * with the token it holds and nothing more to learn. The answer is 200 whatever the token, so it tells nothing
 * about tokens (§2.2).
 */

import { MCP_PATHS, mcpUrl } from '../../http/public-url.js';
import { readCappedText } from '../../http/body.js';
import { clientDigest } from './clients.js';
import type { Reached, ServerContext } from './context.js';
import { ownedFamily, revokeFamily } from './grants.js';
import { forgetConsent, personOf } from './remembered-consent.js';
import { oauthError, oauthJson } from './replies.js';

const MAX_FORM_BYTES = 16 * 1024;

export async function revoke(request: Request, ctx: ServerContext, { origin }: Reached): Promise<Response> {
  const text = await readCappedText(request, MAX_FORM_BYTES).catch(() => undefined);
  if (text === undefined) return oauthError(400, 'invalid_request', `The revocation request exceeds ${MAX_FORM_BYTES} bytes or broke off.`);
  const form = new URLSearchParams(text);
  const token = form.get('token');
  const clientId = form.get('client_id');
  if (!token) return oauthError(400, 'invalid_request', 'The revocation request has no token.');
  if (!clientId) return oauthError(400, 'invalid_request', 'The revocation request names no client (client_id).');
  const client = clientDigest(clientId);
  const family = await ownedFamily(ctx.store, token, client);
  if (family) {
    await revokeFamily(ctx.store, family.id);
    await forgetConsent(ctx.store, personOf(family.subject), client);
  } else if (token.split('.').length === 3) {
    const verified = await ctx.verify(token, MCP_PATHS.map((path) => mcpUrl(origin, path)), origin);
    if (verified.ok && verified.principal.clientId === clientId) await forgetConsent(ctx.store, personOf(verified.principal.subject), client);
  }
  return oauthJson({});
}
