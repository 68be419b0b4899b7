/**
 * Which addresses a URL a stranger chose may reach from a deployment: globally routable unicast only. The special
 * ranges are ipaddr.js's, which follows the IANA special-purpose address registries (RFC 6890 and later), so they
 * are kept up to date there rather than in a hand list here. IPv6 outside 2000::/3 is never global unicast (RFC
 * 4291 §2.4, the IANA IPv6 address space). An IPv6 address that carries an IPv4 address to a translator or a
 * tunnel is judged by the IPv4 inside it: IPv4-mapped and IPv4-compatible (RFC 4291 §2.5.5), IPv4-translated
 * (RFC 6145), the NAT64 well-known prefix 64:ff9b::/96 (RFC 6052) and 6to4 (RFC 3056). A local-use NAT64 prefix
 * (64:ff9b:1::/48, RFC 8215) places the IPv4 as the local network chooses, and Teredo reaches a relay, so both
 * are refused.
 */

type IpAddr = typeof import('ipaddr.js');
type IPv6 = InstanceType<IpAddr['IPv6']>;

let loaded: IpAddr | undefined;

/** IPv6 ranges whose last 32 bits are an IPv4 address that the packet ends up reaching. */
const IPV4_IN_LAST_32 = new Set(['ipv4Mapped', 'rfc6145']);

function embeddedIPv4(ipaddr: IpAddr, address: IPv6): InstanceType<IpAddr['IPv4']> | undefined {
  const [a, b, c, d, e, f, g, h] = address.parts as [number, number, number, number, number, number, number, number];
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const range = address.range() as string;
  if (IPV4_IN_LAST_32.has(range)) return v4(g, h);
  // IPv4-compatible ::/96: `::` and `::1` are among them, and come out as 0.0.0.0 and 0.0.0.1, both refused.
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0) return v4(g, h);
  if (range === 'rfc6052' && a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0) return v4(g, h);
  if (range === '6to4') return v4(b, c);
  return undefined;
}

function isPublic(ipaddr: IpAddr, address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as IPv6;
  const inside = embeddedIPv4(ipaddr, v6);
  if (inside) return inside.range() === 'unicast';
  return v6.range() === 'unicast' && (v6.parts[0]! & 0xe000) === 0x2000;
}

/** A check that an address (IPv4 or IPv6, bracketed or not) is globally routable unicast; loads ipaddr.js once. */
export async function publicAddressCheck(): Promise<(address: string) => boolean> {
  const ipaddr = loaded ??= ((await import('ipaddr.js')) as unknown as { default: IpAddr }).default;
  return (address) => isPublic(ipaddr, address);
}
