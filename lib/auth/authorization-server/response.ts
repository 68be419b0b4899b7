/**
 * The authorization response to the client's redirect URI (RFC 6749 §4.1.2, §4.1.2.1): the code or an error,
 * the client's `state` exactly as it sent it, and `iss`, the issuer (RFC 9207: ChatGPT's stable callback and
 * the 2026-07-28 clients check it, so a response cannot be passed off as another server's).
 */

export function authorizationResponse(redirectUri: string, issuer: string, state: string | undefined, params: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (state !== undefined) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.href;
}
