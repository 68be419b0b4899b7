/**
 * CORS for browser clients. The preflight is answered before anything else (before Origin checks and auth),
 * and every reply exposes the headers a browser client must read (`WWW-Authenticate` for the OAuth challenge,
 * `Retry-After` and `RateLimit` for back-off, `MCP-Protocol-Version` for the version a reply speaks), and allows
 * the x402 payment headers a browser client may pay with (lib/pay/header.ts).
 */

import {
  H_LAST_EVENT_ID, H_METHOD, H_NAME, H_PARAM_PREFIX, H_PROTOCOL_VERSION, H_RATELIMIT, H_RATELIMIT_POLICY, H_RETRY_AFTER, H_SESSION_ID,
  H_VERCEL_PROTECTION_BYPASS,
} from '../protocol/headers.js';
import { PAYMENT_HEADERS } from '../pay/payload.js';

const ALLOWED_HEADERS = new Set([
  H_PROTOCOL_VERSION, H_METHOD, H_NAME, H_SESSION_ID, H_LAST_EVENT_ID, 'authorization', 'content-type', 'accept',
  H_VERCEL_PROTECTION_BYPASS, ...PAYMENT_HEADERS,
]);
const ALLOW_HEADERS = [...ALLOWED_HEADERS].join(', ');
// Retry-After and the RateLimit fields are not CORS-safelisted: a browser client could not see when to retry.
const EXPOSE_HEADERS = ['www-authenticate', H_SESSION_ID, H_PROTOCOL_VERSION, H_RETRY_AFTER, H_RATELIMIT_POLICY, H_RATELIMIT].join(', ');
/**
 * What the endpoint serves: POST, GET (resuming an SSE stream) and the preflight itself. DELETE is always 405
 * (no server-side session to end), so a browser is not told it may send it.
 */
const ALLOW_METHODS = 'GET, POST, OPTIONS';

/** Answers an OPTIONS preflight; undefined for every other request. */
export function answerPreflight(request: Request, isAllowedOrigin: (origin: string) => boolean): Response | undefined {
  if (request.method !== 'OPTIONS') return undefined;
  const headers = new Headers({ vary: 'Origin, Access-Control-Request-Headers', 'access-control-max-age': '86400' });
  const origin = request.headers.get('origin');
  if (origin !== null && isAllowedOrigin(origin)) {
    headers.set('access-control-allow-origin', origin);
    headers.set('access-control-allow-methods', ALLOW_METHODS);
    headers.set('access-control-allow-headers', allowHeaders(request.headers.get('access-control-request-headers')));
    headers.set('access-control-expose-headers', EXPOSE_HEADERS);
  }
  return new Response(null, { status: 204, headers });
}

/** `Mcp-Param-*` names are dynamic, so requested ones are reflected; everything else comes from the list. */
function allowHeaders(requested: string | null): string {
  if (!requested) return ALLOW_HEADERS;
  const extra = requested.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h.startsWith(H_PARAM_PREFIX));
  return extra.length ? `${ALLOW_HEADERS}, ${extra.join(', ')}` : ALLOW_HEADERS;
}

/** Adds CORS headers to a reply for an allowed browser origin. */
export function withCors(request: Request, response: Response, isAllowedOrigin: (origin: string) => boolean): Response {
  const origin = request.headers.get('origin');
  if (origin === null || !isAllowedOrigin(origin)) return response;
  response.headers.set('access-control-allow-origin', origin);
  response.headers.set('access-control-expose-headers', EXPOSE_HEADERS);
  response.headers.append('vary', 'Origin');
  return response;
}
