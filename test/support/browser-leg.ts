/**
 * Test support: the browser's part of an OAuth authorization code flow, over plain HTTP. The test authorization
 * server (oauth-server.ts) signs in and consents without a form, so a browser only follows redirects, carrying
 * the authorization server's cookies, until it is sent to the client's redirect URI.
 */

const MAX_HOPS = 20;

/** Follows redirects from an authorization URL until one leads to `redirectUri`; returns that URL, not fetched. */
export async function followToRedirect(authorizationUrl: string | URL, redirectUri: string): Promise<URL> {
  const cookies = new Map<string, string>();
  let next = new URL(authorizationUrl).href;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    if (next.startsWith(redirectUri)) return new URL(next);
    const response = await fetch(next, { redirect: 'manual', headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const line of response.headers.getSetCookie()) {
      const [name, ...value] = line.split(';')[0]!.split('=');
      cookies.set(name!.trim(), value.join('='));
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`the authorization flow stopped at ${next} with HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
    next = new URL(location, next).href;
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
