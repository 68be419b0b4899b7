/**
 * The consent page: plain HTML and a form, so it works without JavaScript, and is never framed (replies.ts).
 * It says who asks, in the terms that can be trusted: for a Client ID Metadata Document the document's host (a
 * name the client gives itself is shown as such, never as its identity); for a client registered here, that it
 * named itself. Then where the browser goes after the decision, the access asked for, and how long an Allow is
 * remembered (remembered-consent.ts).
 */

import { MCP_PATHS, mcpUrl } from '../../http/public-url.js';
import type { Client } from './clients.js';
import { CONSENT_PATH } from './paths.js';
import { describeRedirect } from './redirect-uri.js';
import { escapeHtml as e, page } from './replies.js';

export interface ConsentView {
  client: Client;
  redirectUri: string;
  scopes: string[];
  offline: boolean;
  origin: string;
  resource: string;
  provider: string;
  pendingId: string;
  /** How long an Allow is remembered, in ms (0: not at all). */
  rememberedMs: number;
}

function whoAsks(client: Client): string {
  const named = client.name ? ` It calls itself <strong>“${e(client.name)}”</strong> (its own words).` : '';
  if (client.kind === 'document') {
    return `A client identified by its metadata document at <strong>${e(new URL(client.id).host)}</strong>.${named}`;
  }
  return client.name
    ? `A client that registered itself with this server as <strong>“${e(client.name)}”</strong>, a name it chose and no one checked.`
    : 'A client that registered itself with this server without a name.';
}

export function consentPage(view: ConsentView, cookie: string): Response {
  const scopes = [...view.scopes.map((s) => `<li><code>${e(s)}</code></li>`),
    ...(view.offline ? ['<li><code>offline_access</code>: stay signed in (a refresh token)</li>'] : [])].join('');
  const where = view.resource === mcpUrl(view.origin, MCP_PATHS[0]) ? mcpUrl(view.origin) : view.resource;
  const body = `<h1>Allow access to this MCP server?</h1>`
    + `<p>${whoAsks(view.client)}</p>`
    + `<p>It asks to use <strong>${e(where)}</strong> as you.</p>`
    + `<dl><dt>After you decide, your browser goes to</dt><dd><strong>${e(describeRedirect(view.redirectUri))}</strong></dd>`
    + `<dt>Access asked for</dt><dd><ul>${scopes}</ul></dd></dl>`
    + `<p class="note">Allow only if you started this from an app you trust and expect to go to that address. `
    + `Next you sign in with ${e(view.provider)}; only people this server lets in get access.</p>`
    + (view.rememberedMs > 0 ? `<p class="note">Your answer is remembered for ${Math.round(view.rememberedMs / 86_400_000)} days: `
      + 'this app signs in again as you without this page unless it asks for more, or until it disconnects.</p>' : '')
    + `<form method="post" action="${CONSENT_PATH}"><input type="hidden" name="id" value="${e(view.pendingId)}">`
    + `<button type="submit" name="decision" value="approve">Allow</button>`
    + `<button type="submit" name="decision" value="deny">Deny</button></form>`;
  return page(200, 'Allow access?', body, { 'set-cookie': cookie });
}
