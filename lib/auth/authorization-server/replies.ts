/**
 * What the built-in authorization server answers: OAuth error and success JSON (RFC 6749 §5, never cached,
 * readable by browser clients on any origin), and the HTML pages a person sees (never cached, never framed:
 * X-Frame-Options and CSP frame-ancestors, so no other site can overlay the consent page and steal a click;
 * Referer only to this origin, so no URL of the flow leaks to the provider or the client, while the consent
 * form's POST still carries this Origin: under `no-referrer` browsers send `Origin: null`). Errors are fixed
 * sentences; details go to the operator's log.
 */

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** CORS for the endpoints a browser-based client calls itself (metadata, JWKS, registration, token, revocation). */
export const OPEN_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type, Authorization, MCP-Protocol-Version',
  'access-control-max-age': '86400',
};

export function oauthJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...NO_STORE, ...OPEN_CORS, ...headers } });
}

/** An OAuth error (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009 §2.2.1): `error`, a fixed `error_description`. */
export function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return oauthJson({ error, error_description: description }, status, headers);
}

/** The headers of every page: not cached, not framed, no script, no Referer to another origin. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  ...NO_STORE,
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
};

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML content and attribute values. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}'
  + 'h1{font-size:1.4rem}dt{font-weight:600;margin-top:.8rem}dd{margin:0}code{background:#f2f2f2;padding:0 .2rem}'
  + 'button{font:inherit;padding:.5rem 1.2rem;margin:1rem .6rem 0 0;border-radius:.3rem;border:1px solid #888;background:#fff}'
  + 'button[value=approve]{background:#1a1a1a;color:#fff}.note{color:#555;font-size:.9rem}';

/** A page; `body` is HTML already escaped. */
export function page(status: number, title: string, body: string, headers: Record<string, string> = {}): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">`
    + `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
  return new Response(html, { status, headers: { ...PAGE_HEADERS, ...headers } });
}

/**
 * A page saying why the sign-in stops here, for errors that must not be sent to a redirect URI no person approved;
 * `back`, when given, is a link the person may follow to tell the client (`label` names where it leads).
 */
export function errorPage(status: number, sentence: string, back?: { href: string; label: string }): Response {
  const onward = back
    ? `<p class="note">Go back to the app you came from and try again, or <a href="${escapeHtml(back.href)}">return to ${escapeHtml(back.label)}</a> with this error.</p>`
    : '<p class="note">Go back to the app you came from and try again.</p>';
  return page(status, 'Sign-in cannot continue', `<h1>Sign-in cannot continue</h1><p>${escapeHtml(sentence)}</p>${onward}`);
}

/** A 302 (or 303 after a form) to `location`, with cookies to set. */
export function redirect(location: string, cookies: string[] = [], status = 302): Response {
  const headers = new Headers({ location, ...NO_STORE, 'referrer-policy': 'no-referrer' });
  for (const cookie of cookies) headers.append('set-cookie', cookie);
  return new Response(null, { status, headers });
}
