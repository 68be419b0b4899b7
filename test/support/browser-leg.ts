/**
 * Test support: the browser's part of an OAuth authorization code flow, over plain HTTP. The test authorization
 * server (oauth-server.ts) signs in and consents without a form, so a browser there only follows redirects,
 * carrying the cookies each server set, until it is sent to the client's redirect URI. The built-in authorization
 * server shows a consent page: its form is submitted as a browser submits it (the cookies, the page's Origin), with
 * the decision asked for (approve unless told otherwise).
 */

const MAX_HOPS = 20;

export interface BrowserOptions {
  /** What to click on a consent page. */
  decision?: 'approve' | 'deny';
  /** Every URL the browser requested, in order, and the consent pages it saw. */
  visited?: string[];
  pages?: string[];
  /**
   * Cookies the browser already holds, by origin (`name=value` pairs), e.g. from a sign-in it began earlier; updated
   * with what the servers set, so passing the same object again is the same browser coming back.
   */
  cookies?: Record<string, string[]>;
}

/** A cookie jar keyed by origin and name (enough for the servers under test, which set host-only cookies). */
class Jar {
  private cookies = new Map<string, Map<string, string>>();
  constructor(private readonly held: Record<string, string[]> = {}) {
    for (const [origin, pairs] of Object.entries(held)) {
      this.cookies.set(origin, new Map(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])));
    }
  }
  take(url: string, response: Response) {
    const { origin } = new URL(url);
    const jar = this.cookies.get(origin) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair!.split('=');
      if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) jar.delete(name!.trim());
      else jar.set(name!.trim(), value.join('='));
    }
    this.cookies.set(origin, jar);
    this.held[origin] = [...jar].map(([k, v]) => `${k}=${v}`);
  }
  header(url: string): string {
    return [...(this.cookies.get(new URL(url).origin) ?? [])].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** The form of a consent page: where it posts and its hidden fields. */
function formOf(html: string, pageUrl: string): { action: string; fields: Record<string, string> } | undefined {
  const form = /<form method="post" action="([^"]+)">/.exec(html);
  if (!form) return undefined;
  const fields = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(([, k, v]) => [k!, v!]));
  return { action: new URL(form[1]!, pageUrl).href, fields };
}

/** Follows redirects (and a consent form) from an authorization URL until one leads to `redirectUri`; returns that URL, not fetched. */
export async function followToRedirect(authorizationUrl: string | URL, redirectUri: string, options: BrowserOptions = {}): Promise<URL> {
  const jar = new Jar(options.cookies);
  let next = new URL(authorizationUrl).href;
  let init: RequestInit = {};
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    if (next.startsWith(redirectUri)) return new URL(next);
    options.visited?.push(next);
    const headers = new Headers(init.headers);
    const cookie = jar.header(next);
    if (cookie) headers.set('cookie', cookie);
    const response = await fetch(next, { ...init, headers, redirect: 'manual' });
    jar.take(next, response);
    init = {};
    const location = response.headers.get('location');
    if (location) {
      next = new URL(location, next).href;
      continue;
    }
    const body = await response.text();
    const form = response.status === 200 ? formOf(body, next) : undefined;
    // A page's head is its style sheet: what it says is in the body.
    if (!form) throw new Error(`the authorization flow stopped at ${next} with HTTP ${response.status}: ${body.replace(/<head>[\s\S]*<\/head>/, '').slice(0, 500)}`);
    options.pages?.push(body);
    init = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(next).origin },
      body: new URLSearchParams({ ...form.fields, decision: options.decision ?? 'approve' }).toString(),
    };
    next = form.action;
  }
  throw new Error(`more than ${MAX_HOPS} redirects from ${authorizationUrl}`);
}

/** Plays the browser to the end: the client's own callback listener receives the code, as from a real browser. */
export async function completeInBrowser(authorizationUrl: string | URL, redirectUri: string): Promise<Response> {
  const callback = await followToRedirect(authorizationUrl, redirectUri);
  if (callback.searchParams.has('error')) {
    throw new Error(`the authorization server refused: ${callback.searchParams.get('error')}: ${callback.searchParams.get('error_description')}`);
  }
  return fetch(callback);
}
