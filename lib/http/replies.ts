/** Plain HTTP replies of the MCP endpoint: JSON-RPC bodies, 202, 405 and transport refusals. */

import { TRANSPORT_ERROR, type RpcError } from '../protocol/errors.js';
import { H_PROTOCOL_VERSION } from '../protocol/headers.js';
import { errorMessage, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc.js';
import { messageBody } from '../protocol/shared-result.js';

const JSON_TYPE = 'application/json';
const PLAIN: Readonly<Record<string, string>> = { 'content-type': JSON_TYPE };
/**
 * The headers of a plain JSON reply in each protocol version, made once: a version is one we serve (classify.ts
 * refuses the others), so the table stays as small as the list of revisions.
 */
const VERSIONED = new Map<string, Readonly<Record<string, string>>>();
const MAX_VERSIONS = 16;

function headersFor(version: string | undefined, extra: Record<string, string> | undefined): Record<string, string> {
  if (extra) return { 'content-type': JSON_TYPE, ...extra, ...(version === undefined ? {} : { [H_PROTOCOL_VERSION]: version }) };
  if (version === undefined) return PLAIN;
  let headers = VERSIONED.get(version);
  if (headers) return headers;
  headers = Object.freeze({ 'content-type': JSON_TYPE, [H_PROTOCOL_VERSION]: version });
  if (VERSIONED.size < MAX_VERSIONS) VERSIONED.set(version, headers);
  return headers;
}

/**
 * A JSON-RPC reply; `version`, when known, is the protocol version it speaks. The headers go in with the body:
 * setting one on a made Response costs a warm request more than making it with them (docs/performance.md).
 */
export function jsonReply(body: JsonRpcResponse | JsonRpcResponse[], status = 200, headers?: Record<string, string>, version?: string): Response {
  return new Response(messageBody(body), { status, headers: headersFor(version, headers) });
}

/** An error reply; `id` is null when the request could not be read (JSON-RPC 2.0 §5). */
export function errorReply(status: number, error: RpcError, id: RequestId | null = null, headers?: Record<string, string>) {
  return jsonReply(errorMessage(id, error), status, headers);
}

export function refuse(status: number, message: string, headers?: Record<string, string>): Response {
  return errorReply(status, { code: TRANSPORT_ERROR, message }, null, headers);
}

/** Notifications and client responses are accepted with 202 and no body (transports §Sending Messages). */
export function accepted(): Response {
  return new Response(null, { status: 202 });
}

/** Stateless serving has no standalone GET stream and no session to DELETE (transports §Listening). */
export function methodNotAllowed(): Response {
  return refuse(405, 'Method not allowed: this server is stateless; send JSON-RPC messages with POST.', {
    allow: 'POST, OPTIONS',
  });
}
