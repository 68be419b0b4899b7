/**
 * Server-to-client requests on the stateless legacy wire (sampling, elicitation, roots).
 * The request goes out on the call's own stream with an unguessable id; the client answers with a separate
 * POST that may land on any instance, so the answer travels through the store to the waiting call.
 */

import { McpError, INTERNAL_ERROR } from '../protocol/errors.js';
import { isObject, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { takeValue, type Store } from '../store/types.js';
import type { CallContext } from './context.js';

const ID_PREFIX = 'mcp-srv-';
const REPLY_TTL_MS = 10 * 60_000;
const DEFAULT_TIMEOUT_MS = 5 * 60_000;

const replyKey = (id: string) => `reply:${id}`;

export async function requestClient(
  call: CallContext,
  signal: AbortSignal,
  method: string,
  params: Record<string, unknown>,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<Record<string, unknown>> {
  const id = ID_PREFIX + crypto.randomUUID();
  call.outbound!.write({ jsonrpc: '2.0', id, method, params });
  const reply = await takeValue<JsonRpcResponse>(call.store, replyKey(id), { signal, timeoutMs });
  if (reply === undefined) {
    throw new McpError(INTERNAL_ERROR, signal.aborted
      ? `The request was cancelled while waiting for the client's ${method} answer.`
      : `The client did not answer ${method} in time.`);
  }
  // The client's error code speaks of our request to it (e.g. -32601: it has no sampling); reusing it for
  // the client's own call would mislead, so the call fails as an internal error carrying the client's answer.
  if ('error' in reply) {
    throw new McpError(INTERNAL_ERROR, `The client answered ${method} with an error: ${reply.error.message}`, { clientError: reply.error });
  }
  return isObject(reply.result) ? reply.result : {};
}

/** Files a client's answer for the call waiting on it; answers to ids we never minted are ignored. */
export async function deliverClientResponse(store: Store, response: JsonRpcResponse): Promise<void> {
  if (typeof response.id !== 'string' || !response.id.startsWith(ID_PREFIX)) return;
  await store.set(replyKey(response.id), response, REPLY_TTL_MS);
}
