/**
 * Fetches a Client ID Metadata Document (MCP authorization §Client ID Metadata Documents, security
 * considerations: the authorization server fetches a URL a stranger chose). Bounded in time (the whole exchange,
 * body included) and in bytes (counted as read); redirects are not followed. Deployed, only public addresses are
 * reached: the address every connection really uses is checked (the DNS answer as the socket gets it), so a name
 * that resolves to a private, loopback or link-local address, or changes its answer between a check and the
 * connection (DNS rebinding), is refused. Served locally, loopback is allowed, for development.
 * node:http(s) rather than fetch: its `lookup` hook sees the address it connects to.
 */

import type { LookupAddress } from 'node:dns';
import type { IncomingMessage } from 'node:http';

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  /** Served locally: loopback and private addresses, and http, are allowed. */
  allowPrivate: boolean;
}

export type Fetched =
  | { ok: true; text: string; maxAgeSec?: number; noStore: boolean }
  | { ok: false; reason: string };

let blocked: import('node:net').BlockList | undefined;

/** Addresses a stranger's URL must never reach from a deployment (RFC 6890 special-purpose ranges). */
function privateRanges(): import('node:net').BlockList {
  if (blocked) return blocked;
  const { BlockList } = process.getBuiltinModule('node:net');
  const list = new BlockList();
  for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
    ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 3]] as const) {
    list.addSubnet(net, prefix, 'ipv4');
  }
  for (const [net, prefix] of [['::', 127], ['::ffff:0:0', 96], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
    list.addSubnet(net, prefix, 'ipv6');
  }
  return (blocked = list);
}

/** True for an address in a private, loopback, link-local or otherwise special range (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const { isIPv4, isIPv6 } = process.getBuiltinModule('node:net');
  const bare = address.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  if (mapped) return privateRanges().check(mapped, 'ipv4');
  if (isIPv4(bare)) return privateRanges().check(bare, 'ipv4');
  if (isIPv6(bare)) return privateRanges().check(bare, 'ipv6');
  return true;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for node:http that answers only public addresses. */
function publicLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  process.getBuiltinModule('node:dns').lookup(hostname, { all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const allowed = addresses.filter((a) => !isPrivateAddress(a.address));
    if (!allowed.length) {
      const refused = Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' });
      return callback(refused, []);
    }
    if (options.all) return callback(null, allowed);
    callback(null, allowed[0]!.address, allowed[0]!.family);
  });
}

/** `max-age` and `no-store` of a Cache-Control header. */
function cachingOf(header: string | undefined): { maxAgeSec?: number; noStore: boolean } {
  const value = header?.toLowerCase() ?? '';
  const maxAge = /(?:^|,)\s*max-age=(\d+)/.exec(value)?.[1];
  return { ...(maxAge ? { maxAgeSec: Number(maxAge) } : {}), noStore: /(?:^|,)\s*(?:no-store|no-cache)\b/.test(value) };
}

/** GETs `url` as JSON within the limits; never throws. */
export function fetchDocument(url: URL, limits: FetchLimits): Promise<Fetched> {
  if (url.protocol !== 'https:' && !(limits.allowPrivate && url.protocol === 'http:')) return Promise.resolve({ ok: false, reason: 'not an https URL' });
  const { isIP } = process.getBuiltinModule('node:net');
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!limits.allowPrivate && isIP(literal) && isPrivateAddress(literal)) return Promise.resolve({ ok: false, reason: 'a private address' });
  const client = process.getBuiltinModule(url.protocol === 'https:' ? 'node:https' : 'node:http');
  return new Promise<Fetched>((resolve) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (result: Fetched) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const request = client.get(url, {
      headers: { accept: 'application/json', 'user-agent': 'agent-mcp' },
      ...(limits.allowPrivate ? {} : { lookup: publicLookup as never }),
    }, (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) return finish({ ok: false, reason: `a redirect (HTTP ${status}), which is not followed` });
      if (status !== 200) return finish({ ok: false, reason: `HTTP ${status}` });
      if (Number(response.headers['content-length'] ?? 0) > limits.maxBytes) return finish({ ok: false, reason: `larger than ${limits.maxBytes} bytes` });
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size > limits.maxBytes) return finish({ ok: false, reason: `larger than ${limits.maxBytes} bytes` });
        chunks.push(chunk);
      });
      response.on('end', () => finish({ ok: true, text: Buffer.concat(chunks).toString('utf8'), ...cachingOf(response.headers['cache-control']) }));
      response.on('error', () => finish({ ok: false, reason: 'the connection failed' }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => finish({ ok: false, reason: error.code === 'EPRIVATE' ? 'a private address' : 'unreachable' }));
    timer = setTimeout(() => finish({ ok: false, reason: `no complete answer within ${limits.timeoutMs} ms` }), limits.timeoutMs);
  });
}
