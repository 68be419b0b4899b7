/**
 * Replies for public discovery documents: never behind auth, open CORS (they are read by browser clients on
 * any origin), cacheable, with an ETag so clients can revalidate cheaply (304).
 */

import { sha256Hex } from '../digest.js';
import { H_VERCEL_PROTECTION_BYPASS } from '../protocol/headers.js';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, OPTIONS',
  // The bypass header too: a browser client behind Deployment Protection sends it on discovery as well.
  'access-control-allow-headers': `Content-Type, If-None-Match, MCP-Protocol-Version, Authorization, ${H_VERCEL_PROTECTION_BYPASS}`,
  'access-control-expose-headers': 'ETag',
};

async function etagOf(body: string): Promise<string> {
  return `"${(await sha256Hex(body)).slice(0, 24)}"`;
}

/** Answers OPTIONS, refuses other non-GET methods, and serves `document` as JSON of `contentType`. */
export async function serveDocument(request: Request, document: unknown, contentType: string, maxAgeSec: number): Promise<Response> {
  if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: { ...CORS, 'access-control-max-age': '86400' } });
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return new Response(null, { status: 405, headers: { ...CORS, allow: 'GET, HEAD, OPTIONS' } });
  }
  const body = JSON.stringify(document, null, 2);
  const etag = await etagOf(body);
  const headers = { ...CORS, 'content-type': contentType, 'cache-control': `public, max-age=${maxAgeSec}`, etag, vary: 'Host, X-Forwarded-Host' };
  if (request.headers.get('if-none-match')?.split(',').map((t) => t.trim()).includes(etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers });
}

/** 404 for a document this deployment does not publish, with the same CORS so browsers can read why. */
export function notPublished(message: string): Response {
  return new Response(JSON.stringify({ error: 'not_found', error_description: message }), {
    status: 404,
    headers: { ...CORS, 'content-type': 'application/json' },
  });
}
