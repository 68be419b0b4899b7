/**
 * POST /oauth/consent: the person's decision. It counts only from the browser that was shown the page: the
 * pending request's cookie (SameSite=Lax, so another site's form carries none) and, when the browser sends one,
 * an Origin of this deployment. Deny goes back to the client as access_denied; allow marks the request approved,
 * records in the browser that its person approved this client and redirect URI (approvals.ts), and sends the
 * browser to sign in at the provider (as authorize.ts does at once when a consent is remembered for its person).
 */

import { readCappedText } from '../../http/body.js';
import { approvalCookie } from './approvals.js';
import type { Reached, ServerContext } from './context.js';
import { clearPendingCookie, pendingCookie, readPending, type Pending } from './pending.js';
import { isFailure } from './providers/http.js';
import { CALLBACK_PATH } from './paths.js';
import { errorPage, redirect } from './replies.js';
import { authorizationResponse } from './response.js';
import { sealProviderState, signInSecrets } from './sign-in.js';

const MAX_FORM_BYTES = 4096;

export async function consent(request: Request, ctx: ServerContext, reached: Reached): Promise<Response> {
  const { origin, secure } = reached;
  const from = request.headers.get('origin');
  if (from !== null && from !== origin) return errorPage(403, 'This decision was not sent from this server\'s page.');
  const text = await readCappedText(request, MAX_FORM_BYTES).catch(() => undefined);
  if (text === undefined) return errorPage(400, 'The form could not be read.');
  const form = new URLSearchParams(text);
  const pending = await readPending(ctx.keyring, request, form.get('id'));
  if (!pending) return errorPage(400, 'This sign-in request has expired or was started in another browser; start again from the app.');
  const clear = clearPendingCookie(pending.id, secure);
  if (form.get('decision') !== 'approve') {
    const denied = authorizationResponse(pending.redirectUri, origin, pending.state, { error: 'access_denied', error_description: 'The person denied access.' });
    return redirect(denied, [clear], 303);
  }
  return toProvider(ctx, pending, reached, [await approvalCookie(ctx.keyring, request, pending.client, pending.redirectUri, secure)]);
}

/** Sends the browser to sign in at the provider for `pending`, now approved, setting `cookies` too. */
export async function toProvider(ctx: ServerContext, pending: Pending, { origin, secure }: Reached, cookies: string[]): Promise<Response> {
  const { challenge, nonce } = await signInSecrets(ctx.keyring, pending.id);
  const started = await ctx.signIn.authorizationUrl({
    callbackUrl: ctx.config.callbackUrl ?? `${origin}${CALLBACK_PATH}`,
    state: await sealProviderState(ctx.keyring, pending.id, origin),
    codeChallenge: challenge,
    nonce,
  });
  if (isFailure(started)) {
    ctx.log.provider.note(started.failure);
    return errorPage(502, `${ctx.signIn.name} did not answer as expected; try again shortly.`);
  }
  const approved = await pendingCookie(ctx.keyring, { ...pending, approved: true }, secure);
  if (!approved) return errorPage(400, 'This sign-in request is too large to continue (its redirect URI and state together).');
  return redirect(started, [approved, ...cookies], 303);
}
