/**
 * POST /oauth/revoke (RFC 7009): a refresh token revokes its whole family. Access tokens are short-lived JWTs
 * that no list is checked for: revoking one is accepted and changes nothing (§2.2 allows it) until it expires,
 * within 15 minutes. The answer is 200 whatever the token, so it tells nothing about tokens (§2.2).
 */

import { readCappedText } from '../../http/body.js';
import { clientDigest } from './clients.js';
import type { ServerContext } from './context.js';
import { ownedFamily, revokeFamily } from './grants.js';
import { oauthError, oauthJson } from './replies.js';

const MAX_FORM_BYTES = 16 * 1024;

export async function revoke(request: Request, ctx: ServerContext): Promise<Response> {
  const text = await readCappedText(request, MAX_FORM_BYTES).catch(() => undefined);
  if (text === undefined) return oauthError(400, 'invalid_request', `The revocation request exceeds ${MAX_FORM_BYTES} bytes or broke off.`);
  const form = new URLSearchParams(text);
  const token = form.get('token');
  const clientId = form.get('client_id');
  if (!token) return oauthError(400, 'invalid_request', 'The revocation request has no token.');
  if (!clientId) return oauthError(400, 'invalid_request', 'The revocation request names no client (client_id).');
  const family = await ownedFamily(ctx.store, token, clientDigest(clientId));
  if (family) await revokeFamily(ctx.store, family);
  return oauthJson({});
}
