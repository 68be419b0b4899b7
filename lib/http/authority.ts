/**
 * A Host (or X-Forwarded-Host) value read as what it must be: an RFC 3986 §3.2 authority without user info,
 * `host[:port]` (RFC 9110 §7.2), where host is a DNS name, an IPv4 address or a bracketed IPv6 literal. Anything
 * else (`[::1]@evil.com`, `localhost:3100/evil`, a port above 65535) is not an authority and is never used to
 * check a host or build a URL: a lenient read would let a client name one host to the check and another to the URL.
 */

import { DIGITS, charClass } from '../chars.js';

const LABEL_CHARS = charClass('A-Za-z0-9-');
const IP_LITERAL_CHARS = charClass('0-9A-Fa-f:.');

/** A DNS label (RFC 1123 §2.1): letters, digits and hyphens, not at either end. */
const isLabel = (label: string) => label.length > 0 && LABEL_CHARS.all(label) && !label.startsWith('-') && !label.endsWith('-');

/**
 * DNS labels or an IP literal in brackets (`[` hex digits, `:` and `.` `]`), then an optional port of 1-5 digits;
 * nothing before or after. Checked by loops rather than one regular expression (lib/chars.ts): every cold start
 * checks a Host.
 */
function isAuthority(value: string): boolean {
  let hostEnd: number;
  if (value.startsWith('[')) {
    hostEnd = value.indexOf(']') + 1;
    if (hostEnd < 3 || !IP_LITERAL_CHARS.all(value, 1, hostEnd - 1)) return false;
  } else {
    const colon = value.indexOf(':');
    hostEnd = colon === -1 ? value.length : colon;
    if (!value.slice(0, hostEnd).split('.').every(isLabel)) return false;
  }
  if (hostEnd === value.length) return true;
  const digits = value.length - hostEnd - 1;
  return value[hostEnd] === ':' && digits >= 1 && digits <= 5 && DIGITS.all(value, hostEnd + 1);
}

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
  if (!value || !isAuthority(value)) return undefined;
  // The check admits any 5-digit port and any bracketed hex; the URL parser refuses what is out of range.
  if (!URL.canParse(`${scheme}://${value}`)) return undefined;
  const { host, hostname, port } = new URL(`${scheme}://${value}`);
  return { host, hostname, port };
}
