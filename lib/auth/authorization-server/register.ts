/**
 * POST /oauth/register: dynamic client registration (RFC 7591), for the clients that still use it (Cursor,
 * Claude without a metadata document, the Inspector, mcp-remote, the SDKs). The body is bounded; the registration
 * is sealed into the client id (clients.ts), so registering stores nothing.
 */

import { readCappedText } from '../../http/body.js';
import { CLIENT_BOUNDS, registerClient } from './clients.js';
import type { ServerContext } from './context.js';
import { oauthError, oauthJson } from './replies.js';

export async function register(request: Request, ctx: ServerContext): Promise<Response> {
  if (!/^application\/json\b/i.test(request.headers.get('content-type') ?? '')) {
    return oauthError(400, 'invalid_client_metadata', 'Send the registration as application/json.');
  }
  const text = await readCappedText(request, CLIENT_BOUNDS.maxDocumentBytes).catch(() => undefined);
  if (text === undefined) {
    ctx.log.bounds.note(`a registration over ${CLIENT_BOUNDS.maxDocumentBytes} bytes`);
    return oauthError(413, 'invalid_client_metadata', `The registration exceeds ${CLIENT_BOUNDS.maxDocumentBytes} bytes or broke off.`);
  }
  let metadata: unknown;
  try {
    metadata = JSON.parse(text);
  } catch {
    return oauthError(400, 'invalid_client_metadata', 'The registration is not JSON.');
  }
  const registered = await registerClient(metadata, ctx.keyring);
  if (registered.ok) return oauthJson(registered.body, 201);
  ctx.log.bounds.note(`a registration: ${registered.description}`);
  return oauthError(400, registered.error, registered.description);
}
