/**
 * A Host (or X-Forwarded-Host) value read as what it must be: an RFC 3986 §3.2 authority without user info,
 * `host[:port]` (RFC 9110 §7.2), where host is a DNS name, an IPv4 address or a bracketed IPv6 literal. Anything
 * else (`[::1]@evil.com`, `localhost:3100/evil`, a port above 65535) is not an authority and is never used to
 * check a host or build a URL: a lenient read would let a client name one host to the check and another to the URL.
 */

/** DNS labels (RFC 1123 §2.1) or an IP literal in brackets, then an optional port; nothing before or after. */
const AUTHORITY = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export interface Authority {
  /** Lowercased host and port as a URL writes them (`localhost:3000`, `[::1]`; a default port is dropped). */
  host: string;
  /** Lowercased host name, an IPv6 literal in brackets (`[::1]`). */
  hostname: string;
  /** The port written, or '' when none (or the scheme's default). */
  port: string;
}

/** `value` as an authority, or undefined when it is not exactly one. */
export function parseAuthority(value: string | null | undefined, scheme: 'http' | 'https' = 'http'): Authority | undefined {
  if (!value || !AUTHORITY.test(value)) return undefined;
  // The pattern admits any 5-digit port and any bracketed hex; the URL parser refuses what is out of range.
  if (!URL.canParse(`${scheme}://${value}`)) return undefined;
  const { host, hostname, port } = new URL(`${scheme}://${value}`);
  return { host, hostname, port };
}
