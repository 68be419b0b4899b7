/**
 * Fetches a Client ID Metadata Document (MCP authorization §Client ID Metadata Documents, security
 * considerations: the authorization server fetches a URL a stranger chose). Bounded in time (the whole exchange,
 * body included) and in bytes (counted as read); redirects are not followed. Deployed, only globally routable unicast
 * addresses are reached (public-address.ts): the address every connection really uses is checked (the DNS answer as
 * the socket gets it), so a name that resolves to a private, loopback, link-local or translated address, or changes
 * its answer between a check and the connection (DNS rebinding), is refused. Served locally (neither PUBLIC_URL nor
 * VERCEL set), any address and http are allowed, for development.
 * node:http(s) rather than fetch: its `lookup` hook sees the address it connects to.
 */

import type { LookupAddress } from 'node:dns';
import type { IncomingMessage } from 'node:http';
import { publicAddressCheck } from './public-address.js';

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  /** Served locally: loopback and private addresses, and http, are allowed. */
  allowPrivate: boolean;
}

export type Fetched =
  | { ok: true; text: string; maxAgeSec?: number; noStore: boolean }
  | { ok: false; reason: string };

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for node:http that answers only the addresses `isPublic` lets through. */
const publicLookup = (isPublic: (address: string) => boolean) => (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
  process.getBuiltinModule('node:dns').lookup(hostname, { all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const allowed = addresses.filter((a) => isPublic(a.address));
    if (!allowed.length) {
      const refused = Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' });
      return callback(refused, []);
    }
    if (options.all) return callback(null, allowed);
    callback(null, allowed[0]!.address, allowed[0]!.family);
  });
};

/** `max-age` and `no-store` of a Cache-Control header. */
function cachingOf(header: string | undefined): { maxAgeSec?: number; noStore: boolean } {
  const value = header?.toLowerCase() ?? '';
  const maxAge = /(?:^|,)\s*max-age=(\d+)/.exec(value)?.[1];
  return { ...(maxAge ? { maxAgeSec: Number(maxAge) } : {}), noStore: /(?:^|,)\s*(?:no-store|no-cache)\b/.test(value) };
}

/** GETs `url` as JSON within the limits; never throws. */
export async function fetchDocument(url: URL, limits: FetchLimits): Promise<Fetched> {
  if (url.protocol !== 'https:' && !(limits.allowPrivate && url.protocol === 'http:')) return { ok: false, reason: 'not an https URL' };
  const isPublic = limits.allowPrivate ? undefined : await publicAddressCheck();
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isPublic && process.getBuiltinModule('node:net').isIP(literal) && !isPublic(literal)) return { ok: false, reason: 'a private address' };
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
      ...(isPublic ? { lookup: publicLookup(isPublic) as never } : {}),
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
