/**
 * Test support: Vercel Deployment Protection (Vercel Authentication) in front of a server, on loopback. A request
 * without the Protection Bypass for Automation secret gets what a protected preview answers an anonymous client (the
 * real one is not reachable from tests): 401 with Vercel's sign-in page, `server: Vercel` and a `_vercel_sso_nonce`
 * cookie, the headers such a reply carries (shared/reference x402-upstash-vercel.md C6; a recorded reply:
 * https://blog.kimizuka.org/entry/2024/03/26/080000). A request carrying the secret in `x-vercel-protection-bypass`
 * is passed to `upstream` as it came, Host included, so the server behind sees the gate's origin.
 */

import { randomBytes } from 'node:crypto';
import { createServer, request } from 'node:http';
import { H_VERCEL_PROTECTION_BYPASS } from '../../lib/protocol/headers.js';

export interface VercelProtection {
  origin: string;
  /** Where requests with the secret go from now on (a server started after the gate, to advertise its origin). */
  setUpstream(origin: string): void;
  close(): Promise<void>;
}

const SIGN_IN_PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authentication Required</title>'
  + '<meta name="robots" content="noindex"></head><body><p>Authenticating…</p><noscript>Authentication Required: '
  + 'sign in with Vercel to view this deployment.</noscript></body></html>';

export async function startVercelProtection(secret?: string): Promise<VercelProtection> {
  let upstream: string | undefined;
  const server = createServer((req, res) => {
    if (upstream && secret !== undefined && req.headers[H_VERCEL_PROTECTION_BYPASS] === secret) {
      const onward = request(`${upstream}${req.url}`, { method: req.method, headers: req.headers }, (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      });
      onward.on('error', () => res.destroy());
      req.pipe(onward);
      return;
    }
    req.resume();
    res.writeHead(401, {
      'cache-control': 'no-store, max-age=0',
      'content-type': 'text/html; charset=utf-8',
      server: 'Vercel',
      'set-cookie': `_vercel_sso_nonce=${randomBytes(12).toString('base64url')}; Max-Age=3600; Path=/; Secure; HttpOnly; SameSite=Lax`,
      'strict-transport-security': 'max-age=63072000',
      'x-frame-options': 'DENY',
      'x-robots-tag': 'noindex',
      'x-vercel-id': `iad1::${randomBytes(6).toString('hex')}`,
    }).end(SIGN_IN_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    setUpstream(origin) { upstream = origin; },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
