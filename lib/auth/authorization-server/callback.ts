/**
 * GET /oauth/callback: the provider sends the browser back. The sign-in must be one this server started (its
 * sealed state), in this browser (the pending request's cookie, approved), so a callback forged into someone
 * else's browser goes nowhere (RFC 9700 §4.7: login CSRF). The code is exchanged with this sign-in's PKCE verifier,
 * the person checked against the allow-list, and only then is an authorization code issued to the client. A consent
 * given on the page is then remembered for that person (remembered-consent.ts), and the browser told who signed in;
 * a request approved by a remembered consent must end with the person it was remembered for (or another whose own
 * consent covers it): anyone else was never asked, and is shown a page instead.
 */

import { StoreUnavailableError } from '../../store/types.js';
import { admit } from './admit.js';
import type { Reached, ServerContext } from './context.js';
import { issueCode } from './grants.js';
import { clearPendingCookie, readPending } from './pending.js';
import { isFailure } from './providers/http.js';
import { CALLBACK_PATH } from './paths.js';
import {
  clearPersonCookie, isRemembered, personCookie, personOf, rememberConsent, type Consented,
} from './remembered-consent.js';
import { errorPage, redirect } from './replies.js';
import { authorizationResponse } from './response.js';
import { openProviderState, signInSecrets } from './sign-in.js';

export async function callback(request: Request, ctx: ServerContext, { origin, secure }: Reached): Promise<Response> {
  const url = new URL(request.url);
  const params = url.searchParams;
  const opened = await openProviderState(ctx.keyring, params.get('state'));
  if (!opened) return errorPage(400, 'This sign-in response is not one this server started.');
  const started = opened.value;
  // A preview deployment whose provider callback is this one: its own callback finishes the sign-in.
  if (started.o !== origin) return redirect(`${started.o}${CALLBACK_PATH}${url.search}`);
  const pending = await readPending(ctx.keyring, request, started.i);
  if (!pending?.approved) return errorPage(400, 'This sign-in has expired or was started in another browser; start again from the app.');
  const clear = [clearPendingCookie(pending.id, secure)];
  const back = (values: Record<string, string>, cookies: string[] = []) =>
    redirect(authorizationResponse(pending.redirectUri, origin, pending.state, values), [...clear, ...cookies]);
  const code = params.get('code');
  if (!code) return back({ error: 'access_denied', error_description: `The sign-in at ${ctx.signIn.name} was cancelled or refused.` });

  const { verifier, nonce } = await signInSecrets(opened.sealedBy, pending.id);
  const identity = await ctx.signIn.identify({ code, callbackUrl: ctx.config.callbackUrl ?? `${origin}${CALLBACK_PATH}`, codeVerifier: verifier, nonce });
  if (isFailure(identity)) {
    ctx.log.provider.note(identity.failure);
    return back({ error: 'temporarily_unavailable', error_description: `${ctx.signIn.name} did not answer as expected; try again shortly.` });
  }
  if (!(await admit(ctx, identity))) {
    return back({ error: 'access_denied', error_description: 'This account may not use this server.' });
  }
  const person = personOf(identity.subject);
  const given: Consented = { client: pending.client, redirectUri: pending.redirectUri, resource: pending.resource, scopes: pending.scopes, offline: pending.offline };
  if (pending.person !== undefined && pending.person !== person && !(await isRemembered(ctx.store, person, given, ctx.config.consentTtlMs))) {
    const page = errorPage(400, 'You signed in as someone other than the person who allowed this app before, and you were not asked; start again from the app.');
    for (const cookie of [...clear, clearPersonCookie(secure)]) page.headers.append('set-cookie', cookie);
    return page;
  }
  const ttlMs = ctx.config.consentTtlMs;
  if (pending.person === undefined && ttlMs > 0) {
    await rememberConsent(ctx.store, person, given, ttlMs).catch((error: unknown) => {
      // Not remembered: the page is shown next time; the sign-in goes on.
      if (!(error instanceof StoreUnavailableError)) throw error;
      ctx.log.store.note(`a consent not remembered: ${error.message}`);
    });
  }
  const issued = await issueCode(ctx.store, {
    subject: identity.subject, client: pending.client, scopes: pending.scopes, resource: pending.resource,
    redirectUri: pending.redirectUri, redirectGiven: pending.redirectGiven, codeChallenge: pending.codeChallenge,
  }, pending.offline);
  return back({ code: issued }, ttlMs > 0 ? [await personCookie(ctx.keyring, person, ttlMs, secure)] : []);
}
