/**
 * Server-to-client requests on the stateless legacy wire (sampling, elicitation, roots).
 * The request goes out on the call's own stream; the client answers with a separate POST that may land on any
 * instance, so the answer travels through the store to the waiting call. The request's id is bound to the
 * caller by a MAC, and the answer is filed under the caller's key: only the caller that owns the call can
 * answer it, and a caller without an identity (no principal, no session) cannot be asked at all.
 */

import { McpError, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, rpcError, type RpcError } from '../protocol/errors.js';
import { isObject, notificationMessage, type JsonRpcMessage, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { takeValue, type Store } from '../store/types.js';
import { storeKeys } from './caller.js';
import type { Keyring } from './keyring.js';

const ID_PREFIX = 'mcp-srv-';
const LABEL = 'client-request';
const REPLY_TTL_MS = 10 * 60_000;
const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/** What a call needs to ask its client. */
export interface ClientChannel {
  keyring: Keyring;
  store: Store;
  caller: string | undefined;
  write(message: JsonRpcMessage): void;
}

export async function requestClient(
  channel: ClientChannel,
  signal: AbortSignal,
  method: string,
  params: Record<string, unknown>,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<Record<string, unknown>> {
  const { caller } = channel;
  if (caller === undefined) {
    throw new McpError(INVALID_PARAMS, `${method} needs a client the server can recognise when it answers: ` +
      'keep the Mcp-Session-Id this server issued at initialize (or authenticate).');
  }
  const id = ID_PREFIX + (await channel.keyring.issue(LABEL, caller));
  channel.write({ jsonrpc: '2.0', id, method, params });
  const reply = await takeValue<JsonRpcResponse>(channel.store, storeKeys.clientAnswer(caller, id), { signal, timeoutMs });
  if (reply === undefined) {
    // We no longer wait, so the client need not ask its user or model any more (basic/utilities/cancellation:
    // either side may cancel a request it sent); on a stream already closed this is a no-op.
    channel.write(notificationMessage('notifications/cancelled', { requestId: id, reason: signal.aborted ? 'The call that asked is over.' : 'No answer in time.' }));
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

/**
 * Files a client's answer for the call waiting on it. Answers to ids of another form are not ours and are
 * ignored; an answer to one of our ids from anyone but the caller it was sent to is refused.
 */
export async function deliverClientResponse(
  keyring: Keyring,
  store: Store,
  caller: string | undefined,
  response: JsonRpcResponse,
): Promise<RpcError | undefined> {
  if (typeof response.id !== 'string' || !response.id.startsWith(ID_PREFIX)) return undefined;
  const token = response.id.slice(ID_PREFIX.length);
  if (caller === undefined || !(await keyring.check(LABEL, token, caller))) {
    return rpcError(INVALID_REQUEST, 'This response answers no request this server sent to you.');
  }
  await store.set(storeKeys.clientAnswer(caller, response.id), storedAnswer(response), REPLY_TTL_MS);
  return undefined;
}

/** Only what an answer is specified to hold goes to the store: the id and a result or an error. */
function storedAnswer(response: JsonRpcResponse): JsonRpcResponse {
  if ('error' in response) {
    const { code, message } = response.error;
    return { jsonrpc: '2.0', id: response.id, error: { code: Number(code) || 0, message: String(message).slice(0, 1024) } };
  }
  return { jsonrpc: '2.0', id: response.id, result: response.result };
}
