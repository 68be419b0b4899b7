/**
 * The in-memory dispatcher: (message, call context) → reply. It knows nothing of HTTP; the same function
 * serves the HTTP endpoint, the in-process client transport and tests. Per-era method tables decide what
 * exists; errors are values; anything unexpected becomes -32603 without detail.
 */

import {
  INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, McpError, rpcError, type RpcError,
} from '../protocol/errors.js';
import {
  errorMessage, isNotification, isObject, isRequest, isRequestId, isResponse, ownValue, readId, resultMessage,
  type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse, type RequestId,
} from '../protocol/jsonrpc.js';
import { META_SERVER_INFO } from '../protocol/meta.js';
import { isSharedResult, shareResult } from '../protocol/shared-result.js';
import { MRTR_METHODS, isLogLevel, servesMethod } from '../protocol/methods.js';
import { logStoreFailure, storeFailureSentence, StoreUnavailableError } from '../store/types.js';
import { sha256Hex } from '../digest.js';
import { storeKeys } from './caller.js';
import { Cancellation } from './cancellation.js';
import { deliverClientResponse } from './client-requests.js';
import { createRequestContext, type CallContext, type RequestContext } from './context.js';
import { keptListPage } from './list-cache.js';
import { principalKey } from './principal-key.js';
import { isInputRequired } from './registry.js';
import { joinMethods, type Handler, type MethodTable, type Server } from './server.js';
import { discover, initialize, ping, setLogLevel } from './methods/lifecycle.js';
import { callTool, listTools } from './methods/tools.js';
import { listResourceTemplates, listResources, readResource, subscribe } from './methods/resources.js';
import { getPrompt, listPrompts } from './methods/prompts.js';
import { complete } from './methods/completion.js';

/** The MCP core's methods; the features' (lib/app.ts: tasks, skills) join them in createDispatcher. */
export const CORE_METHODS: MethodTable = {
  initialize,
  'server/discover': discover,
  ping,
  'logging/setLevel': setLogLevel,
  'tools/list': listTools,
  'tools/call': callTool,
  'resources/list': listResources,
  'resources/templates/list': listResourceTemplates,
  'resources/read': readResource,
  'resources/subscribe': subscribe,
  'resources/unsubscribe': subscribe,
  'prompts/list': listPrompts,
  'prompts/get': getPrompt,
  'completion/complete': complete,
};

/**
 * What the dispatcher can answer at once, before a call is set up: undefined when `message` must be dispatched.
 * Today that is a list's first page already kept for the caller's view (list-cache.ts), the bulk of what clients
 * send; answered so, it costs no call context, cancellation or framing (docs/performance.md).
 */
export type KeptReply = (message: unknown, call: Pick<CallContext, 'era' | 'principal' | 'logLevel'>) => JsonRpcResponse | undefined;

export function createKeptReplies(server: Server): KeptReply {
  return (message, { era, principal, logLevel }) => {
    // A mount's entries are read per request (and may change): only the dispatcher can answer for them.
    if (server.sources.length > 0 || !isRequest(message) || !servesMethod(era, message.method)) return undefined;
    // What dispatching would refuse, or build anew (a later page: the cursor is the client's), it must do itself.
    if (era === 'modern' && logLevel !== undefined && !isLogLevel(logLevel)) return undefined;
    if (message.params?.cursor !== undefined) return undefined;
    const page = keptListPage(server, [server.registry], message.method, era, principal);
    if (!page) return undefined;
    return resultMessage(message.id, era === 'modern' ? completeModern(server, page) : page);
  };
}

const CANCEL_TTL_MS = 30_000;
const MAX_REASON_CHARS = 1024;
const LONGEST_CALL_MS = 15 * 60_000;

export type Dispatch = (message: unknown, call: CallContext) => Promise<JsonRpcResponse | undefined>;

export function createDispatcher(server: Server): Dispatch {
  const methods = joinMethods([CORE_METHODS, server.methods]);
  return async function dispatch(message, call) {
    if (isResponse(message)) {
      const refused = await deliverClientResponse(server.keyring, call.store, call.caller?.key, message);
      return refused && errorMessage(null, refused);
    }
    if (isNotification(message)) return void (await handleNotification(message, call));
    if (!isRequest(message)) {
      return errorMessage(readId(message), rpcError(INVALID_REQUEST, 'Not a valid JSON-RPC 2.0 request.'));
    }
    const handler = servesMethod(call.era, message.method) ? ownValue(methods, message.method) : undefined;
    if (!handler) {
      return errorMessage(message.id, rpcError(METHOD_NOT_FOUND, `Method not found: ${message.method}`));
    }
    const watch = watchCancellation(call, message);
    try {
      const result = await runRequest(server, handler, message, call, watch?.cancellation);
      return watch?.cancelled ? undefined : resultMessage(message.id, result);
    } catch (error) {
      // Receivers of a cancellation SHOULD NOT respond to the cancelled request (basic/utilities/cancellation).
      return watch?.cancelled ? undefined : errorMessage(message.id, toRpcError(error, message.method));
    } finally {
      watch?.stop();
    }
  };
}

async function runRequest(
  server: Server,
  handler: Handler,
  message: JsonRpcRequest,
  call: CallContext,
  watched: Cancellation | undefined,
): Promise<Record<string, unknown>> {
  const params = message.params ?? {};
  if (call.era === 'modern' && call.logLevel !== undefined && !isLogLevel(call.logLevel)) {
    throw new McpError(INVALID_PARAMS, `Invalid log level: ${call.logLevel}.`);
  }
  const binding = () => ({ principal: call.principal ? principalKey(call.principal) : '', method: message.method, params });
  let round: { inputResponses?: Record<string, unknown>; requestState?: unknown } | undefined;
  if (call.era === 'modern' && MRTR_METHODS.has(message.method)) {
    round = await readRound(server, binding(), params, call);
  }

  const cancellation = watched ?? new Cancellation(call.signal);
  try {
    const ctx = createRequestContext(call, message.id, message.method, params, {
      inputResponses: round?.inputResponses, requestState: round?.requestState, cancellation, keyring: server.keyring,
    });
    const result = await handler(server, params, ctx);
    if (isInputRequired(result)) {
      if (call.era !== 'modern') throw new Error(`${message.method} asked for input on the legacy wire.`);
      return {
        resultType: 'input_required',
        ...(result.inputRequests ? { inputRequests: result.inputRequests } : {}),
        requestState: await server.signer.sign(binding(), result.state),
        _meta: { [META_SERVER_INFO]: server.info },
      };
    }
    return call.era === 'modern' ? completeModern(server, result as Record<string, unknown>) : (result as Record<string, unknown>);
  } finally {
    cancellation.dispose();
  }
}

/** Every modern result names its type and the server (2026-07-28 schema: Result, ResultMetaObject). */
function completeModern(server: Server, result: Record<string, unknown>): Record<string, unknown> {
  // A shared result (a kept list page) is completed once, and the completed one is shared in its turn.
  const shared = isSharedResult(result);
  const kept = shared ? completed.get(result) : undefined;
  if (kept?.info === server.info) return kept.result;
  const meta = isObject(result._meta) ? result._meta : {};
  const done = { ...result, resultType: result.resultType ?? 'complete', _meta: { ...meta, [META_SERVER_INFO]: server.info } };
  if (shared) completed.set(result, { info: server.info, result: shareResult(done) });
  return done;
}

const completed = new WeakMap<object, { info: Server['info']; result: Record<string, unknown> }>();

async function readRound(
  server: Server,
  binding: { principal: string; method: string; params: Record<string, unknown> },
  params: Record<string, unknown>,
  call: CallContext,
) {
  const inputResponses = isObject(params.inputResponses) ? params.inputResponses : {};
  if (params.requestState === undefined) return { inputResponses };
  const verified = await server.signer.verify(binding, params.requestState);
  if (!verified) {
    throw new McpError(INVALID_PARAMS, 'requestState is invalid, expired, or was issued for another request.');
  }
  // Used once: a replayed round would run the work again (a chat turn added per replay), and an anonymous
  // caller's state is bound to no one, so whoever holds it could. The claim lives as long as the state could, and
  // is a security record: evicting it would open the state to a replay.
  const used = storeKeys.usedRequestState(call.caller?.key ?? '', await sha256Hex(params.requestState as string));
  if (!(await call.store.withBudget('security').claim(used, 1, Math.max(1, verified.expiresAt - Date.now())))) {
    throw new McpError(INVALID_PARAMS, 'requestState was already used; start the request again without it.');
  }
  return { inputResponses, requestState: verified.state };
}

/**
 * Legacy `notifications/cancelled` arrives on another POST, perhaps at another instance; it is filed in the
 * store under the caller's identity with the time it was filed, and the running call watches for it. Request
 * ids are chosen by clients and repeat across them (SDKs count 0, 1, 2…), so only a caller the server can
 * recognise (principal and/or issued session) can cancel, and only its own calls; a caller without an identity
 * cannot cancel by notification. A call heeds only a cancellation filed after it started: one left by an
 * earlier call with the same id (kept CANCEL_TTL_MS) is older. Instances' clocks must agree to within the time
 * a client takes to cancel, which NTP-synced hosts do.
 */
async function handleNotification(message: JsonRpcNotification, call: CallContext): Promise<void> {
  if (message.method !== 'notifications/cancelled' || !call.cancelByNotification || call.caller?.key === undefined) return;
  const requestId = message.params?.requestId;
  if (!isRequestId(requestId)) return;
  // Only what the field is specified to be: `reason` is an optional string (schema CancelledNotificationParams).
  const reason = message.params?.reason;
  const filed: FiledCancel = { reason: typeof reason === 'string' ? reason.slice(0, MAX_REASON_CHARS) : null, at: Date.now() };
  await call.store.set(storeKeys.cancel(call.caller.key, requestId), filed, CANCEL_TTL_MS);
}

interface FiledCancel {
  reason: string | null;
  at: number;
}

/** Watches the store for a cancellation of this legacy tools/call by its caller; undefined when none can come. */
function watchCancellation(call: CallContext, message: JsonRpcRequest) {
  if (!call.cancelByNotification || call.caller?.key === undefined || message.method !== 'tools/call') return undefined;
  const cancellation = new Cancellation(call.signal);
  const done = new AbortController();
  const key = storeKeys.cancel(call.caller.key, message.id);
  const started = Date.now();
  const watch = { cancellation, cancelled: false, stop: () => done.abort(CALL_DONE) };
  // No read now: a cancellation cannot be filed before the call starts. The store's watcher reads the key when
  // this instance files one (at once) and otherwise with every running call's key in one batched read per tick.
  const heeded = ([filed]: unknown[]) => {
    const at = (filed as FiledCancel | undefined)?.at;
    return typeof at === 'number' && at >= started;
  };
  void call.store.watch([key], heeded, { signal: done.signal, timeoutMs: LONGEST_CALL_MS }).then((filed) => {
    if (!filed || done.signal.aborted) return;
    watch.cancelled = true;
    cancellation.cancel(new Error('Cancelled by the client.'));
  }, () => undefined);
  return watch;
}

/** A fixed reason: aborting without one allocates a DOMException on every call. */
const CALL_DONE = new Error('The call finished.');

function toRpcError(error: unknown, method: string): RpcError {
  if (error instanceof McpError) return error.toJSON();
  if (error instanceof StoreUnavailableError) {
    logStoreFailure(method, error);
    return rpcError(INTERNAL_ERROR, storeFailureSentence(error));
  }
  console.error(`[agent-mcp] ${method} failed:`, error);
  return rpcError(INTERNAL_ERROR, 'Internal error.');
}
