/**
 * Redirect URIs a client may register and how an authorization request's URI must match one (OAuth 2.1 §2.3.1,
 * RFC 8252 §7 for native apps): https anywhere; http only on a loopback host, where any port matches (§7.3: the
 * app's port can change between runs, as VS Code's does); private-use schemes (`cursor://…`, `com.example.app:/…`,
 * §7.1). Everything else matches exactly, character for character. Never a fragment, user info or a scheme a
 * browser would run or read locally.
 */

/** Longest redirect URI accepted: real ones are under a hundred characters, and one rides in a cookie (pending.ts). */
export const MAX_REDIRECT_URI_CHARS = 512;

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Schemes that would run script or open local content instead of handing a code to an app. */
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'filesystem:', 'view-source:']);

/** Why `uri` cannot be registered as a redirect URI, or undefined when it can. */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || !URL.canParse(uri)) return 'is not an absolute URI';
  if (uri.length > MAX_REDIRECT_URI_CHARS) return `is longer than ${MAX_REDIRECT_URI_CHARS} characters`;
  if (uri.includes('#')) return 'has a fragment';
  const url = new URL(uri);
  if (url.username || url.password) return 'has user information';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return LOOPBACK.has(url.hostname) ? undefined : 'uses http on a host that is not loopback (RFC 8252 §7.3)';
  if (REFUSED_SCHEMES.has(url.protocol) || url.protocol === 'ws:' || url.protocol === 'wss:') return `uses the ${url.protocol} scheme`;
  return undefined;
}

/** True when `asked` is one of `registered`: exactly, or a loopback http URI differing only in its port. */
export function matchesRedirectUri(registered: readonly string[], asked: string): boolean {
  if (registered.includes(asked)) return true;
  if (!URL.canParse(asked) || redirectUriProblem(asked) !== undefined) return false;
  const url = new URL(asked);
  if (url.protocol !== 'http:' || !LOOPBACK.has(url.hostname)) return false;
  return registered.some((uri) => {
    const candidate = new URL(uri);
    return candidate.protocol === 'http:' && candidate.hostname === url.hostname
      && candidate.pathname === url.pathname && candidate.search === url.search;
  });
}

/** What the consent page shows as where the browser goes next: an https host, this computer, or an app's scheme. */
export function describeRedirect(uri: string): string {
  const url = new URL(uri);
  if (url.protocol === 'https:') return url.host;
  if (url.protocol === 'http:') return `an app on this computer (${url.host})`;
  return `the app that opens ${url.protocol}${url.host ? `//${url.host}` : ''} links`;
}
