/** Plain HTTP replies of the MCP endpoint: JSON-RPC bodies, 202, 405 and transport refusals. */

import { TRANSPORT_ERROR, type RpcError } from '../protocol/errors.js';
import { errorMessage, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc.js';
import { stringifyMessage } from '../protocol/shared-result.js';

const JSON_TYPE = 'application/json';

export function jsonReply(body: JsonRpcResponse | JsonRpcResponse[], status = 200, headers: Record<string, string> = {}): Response {
  return new Response(stringifyMessage(body), { status, headers: { 'content-type': JSON_TYPE, ...headers } });
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
