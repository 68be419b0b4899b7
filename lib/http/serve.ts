/**
 * Runs a classified POST through the dispatcher and frames the reply. Legacy: a single message gets a single
 * reply (never a one-element array), a batch gets an array, messages without replies get 202; a caller with no
 * identity is cancelled when its connection goes. Modern: one request, cancelled when the client closes its
 * response stream.
 */

import type { Classified } from '../protocol/classify.js';
import { INVALID_PARAMS, INVALID_REQUEST, httpStatusFor } from '../protocol/errors.js';
import { H_PARAM_PREFIX, H_SESSION_ID } from '../protocol/headers.js';
import { errorMessage, isRequest, readId, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc.js';
import type { CallSlots } from '../limits/concurrency.js';
import { applyHeaderPayment, refuseBatchPayment } from '../pay/header.js';
import { allowsSsePolling } from '../protocol/revisions.js';
import { Cancellation } from '../server/cancellation.js';
import { Caller } from '../server/caller.js';
import type { CallContext, Principal } from '../server/context.js';
import type { Dispatch, KeptReply } from '../server/dispatch.js';
import type { RequestLimits } from '../limits/index.js';
import type { Observation } from '../observe/observation.js';
import type { Store } from '../store/types.js';
import type { RequestBounds } from './bounds.js';
import { frameCall } from './frame.js';
import type { LogMemory } from './sse.js';
import { legacyReplyVersion, withProtocolVersion } from './protocol-version.js';
import { accepted, errorReply, jsonReply } from './replies.js';
import { sessionCapabilities, startsSession, type Sessions } from './session.js';

export interface ServeDeps {
  dispatch: Dispatch;
  /** What the dispatcher answers before a call is set up (a kept list page), checked first. */
  kept?: KeptReply;
  store: Store;
  sessions: Sessions;
  /** The rate limits, which a chat call's nested agent turns are charged to as well. */
  limits?: RequestLimits;
  /**
   * The body's bounds, which a payment header's decoded payload is held to as well, and the most bytes of a
   * resumable stream's event log (MCP_MAX_STREAM_LOG_BYTES).
   */
  bounds: Pick<RequestBounds, 'maxBodyBytes' | 'maxJsonDepth' | 'maxStreamLogBytes'>;
  /** Headers for an error reply of this request, e.g. the insufficient_scope challenge of a 403. */
  errorHeaders?(request: Request, error: { code: number; data?: unknown }): Record<string, string> | undefined;
  /** Each caller's share of concurrent calls and the instance's (MCP_MAX_CONCURRENT_CALLS, MCP_MAX_CALLS_PER_INSTANCE): a call takes a slot while it runs. */
  calls: CallSlots;
  /** What all resumable streams of the instance keep in memory (MCP_MAX_STREAM_LOG_MEMORY_BYTES). */
  logMemory: LogMemory;
}

function headersFor(deps: ServeDeps, request: Request) {
  return (reply: JsonRpcResponse) => ('error' in reply ? deps.errorHeaders?.(request, reply.error) : undefined);
}

type Ok<K> = Extract<Classified, { kind: K }>;

/** Legacy: `session` is the verified id the server issued to this client, if it sent one. */
export async function serveLegacy(
  request: Request, classified: Ok<'legacy'>, deps: ServeDeps, observation: Observation, principal?: Principal, session?: string,
) {
  const caller = new Caller(principal, session, deps.calls.addressOf(request));
  observation.noteCaller(principal, session);
  const starting = observation.begin();
  if (starting) await starting;
  const kept = classified.batch ? undefined : deps.kept?.(classified.messages[0], { era: 'legacy', principal });
  if (kept) return answerKept(kept, classified.version, observation);
  // A caller the server recognises may come back for its call: resume the stream (SEP-1699) or cancel it by a
  // later POST, so a dropped connection is not a cancellation (2025-11-25 transports). A caller with no identity
  // can do neither, and nobody is left to deliver to: its calls end with its connection, as on the modern wire.
  const gone = caller.key === undefined ? new Cancellation(() => request.signal) : undefined;
  const base = {
    era: 'legacy' as const,
    protocolVersion: classified.version,
    principal,
    caller,
    clientCapabilities: session === undefined ? {} : sessionCapabilities(session),
    // Everything this request writes, its stream's event log included, is charged to its caller's share.
    store: deps.store.withBudget(caller.storeBudget),
    cancelByNotification: true,
    observation,
    chargeCaller: deps.limits?.chargeFor(caller),
    limitTool: deps.limits?.limitToolFor?.(caller),
    tokenBudget: deps.limits?.tokensFor?.(caller),
    ...(gone ? { signal: gone } : {}),
  };
  // A caller over HTTP always has an address, so always a share.
  const slotKey = caller.concurrencyKey!;
  if (classified.batch) {
    const unpayable = refuseBatchPayment(request.headers, classified.messages);
    if (unpayable) return withProtocolVersion(errorReply(400, { code: INVALID_REQUEST, message: unpayable }), classified.version);
    // Each call of a batch takes its own slot; those past the caller's share are refused in the batch's reply. Each
    // message is observed on its own (its span, its tool's failure), the request as a whole for the log line.
    const replies = await Promise.all(classified.messages.map((m) => {
      const one = observation.message(m);
      const slot = deps.calls.take(slotKey, m);
      const reply = one.run(() => (typeof slot === 'function'
        ? deps.dispatch(m, { ...base, observation: one, usage: one.usage, keepRoom: slot.keepRoom }).finally(slot)
        : (one.noteRefusal(slot.reason), Promise.resolve(errorMessage(readId(m), slot.error)))));
      return reply.then(observation.noteReply);
    }));
    const answered = replies.filter((r): r is JsonRpcResponse => r !== undefined);
    return withProtocolVersion(answered.length ? jsonReply(answered) : accepted(), classified.version);
  }
  const paid = applyHeaderPayment(request.headers, classified.messages[0], deps.bounds);
  if (paid.kind === 'refused') return refusePayment('legacy', classified.messages[0], paid.reason, legacyReplyVersion(classified.messages[0], classified.version));
  const { message } = paid;
  // Only a caller the server recognises may resume a stream, so only its streams are logged (SEP-1699).
  const polling = allowsSsePolling(classified.version) && caller.key !== undefined;
  const issued = startsSession(message) ? await deps.sessions.issue(principal, message.params?.capabilities) : undefined;
  const release = deps.calls.take(slotKey, message);
  if (typeof release !== 'function') {
    observation.noteRefusal(release.reason);
    return withProtocolVersion(release.reply(readId(message)), legacyReplyVersion(message, classified.version));
  }
  const errorHeaders = headersFor(deps, request);
  // Recognised legacy clients cancel explicitly (notifications/cancelled, watched by the dispatcher).
  return frameCall({
    version: legacyReplyVersion(message, classified.version),
    run: (outbound) => observation.runCall(() => deps.dispatch(message, { ...base, outbound, usage: observation.usage, keepRoom: release.keepRoom })).finally(release),
    statusOf: (reply) => ('error' in reply ? httpStatusFor('legacy', reply.error.code) : 200),
    headersOf: (reply) => ('error' in reply ? errorHeaders(reply) : issued ? { [H_SESSION_ID]: issued } : undefined),
    log: polling ? { store: base.store, streamId: crypto.randomUUID(), owner: caller.key, maxBytes: deps.bounds.maxStreamLogBytes, memory: deps.logMemory } : undefined,
    isRequest: isRequest(message),
    onClientGone: () => gone?.cancel(CLIENT_GONE),
  });
}

export async function serveModern(request: Request, classified: Ok<'modern'>, deps: ServeDeps, observation: Observation, principal?: Principal) {
  observation.noteCaller(principal, undefined);
  const version = classified.meta.protocolVersion;
  if (!('id' in classified.message)) return withProtocolVersion(accepted(), version);
  const paid = applyHeaderPayment(request.headers, classified.message, deps.bounds);
  if (paid.kind === 'refused') return refusePayment('modern', classified.message, paid.reason, version);
  const message = paid.message as typeof classified.message;
  const starting = observation.begin();
  if (starting) await starting;
  const kept = deps.kept?.(message, { era: 'modern', principal, logLevel: classified.meta.logLevel });
  if (kept) return answerKept(kept, version, observation);
  const caller = new Caller(principal, undefined, deps.calls.addressOf(request));
  const release = deps.calls.take(caller.concurrencyKey!, message);
  if (typeof release !== 'function') {
    observation.noteRefusal(release.reason);
    return withProtocolVersion(release.reply(message.id), version);
  }
  // The client cancels by closing its response stream or dropping the request; nothing is made unless the call listens.
  const gone = new Cancellation(() => request.signal);
  const call: Omit<CallContext, 'outbound'> = {
    era: 'modern',
    protocolVersion: version,
    principal,
    caller,
    clientCapabilities: classified.meta.clientCapabilities,
    logLevel: classified.meta.logLevel,
    signal: gone,
    store: deps.store.withBudget(caller.storeBudget),
    paramHeaders: paramHeaders(request.headers),
    observation,
    chargeCaller: deps.limits?.chargeFor(caller),
    limitTool: deps.limits?.limitToolFor?.(caller),
    tokenBudget: deps.limits?.tokensFor?.(caller),
    // The call's token meter, made here so the request's log line and span read what its agents spent.
    usage: observation.usage,
    keepRoom: release.keepRoom,
  };
  return frameCall({
    version,
    run: (outbound) => observation.runCall(() => deps.dispatch(message, { ...call, outbound })).finally(release),
    statusOf: (reply) => ('error' in reply ? httpStatusFor('modern', reply.error.code) : 200),
    headersOf: headersFor(deps, request),
    isRequest: true,
    onClientGone: () => gone.cancel(CLIENT_GONE),
  });
}

/** A reply the dispatcher had at hand: no call ran, so there is nothing to frame but one JSON object. */
function answerKept(reply: JsonRpcResponse, version: string, observation: Observation): Response {
  observation.noteReply(reply);
  return jsonReply(reply, 200, undefined, version);
}

const CLIENT_GONE = new Error('The client closed the response stream.');

/** A tools/call whose payment header cannot be used: invalid params, answered before anything runs. */
function refusePayment(era: 'legacy' | 'modern', message: unknown, reason: string, version: string): Response {
  const id = (message as { id: RequestId }).id;
  return withProtocolVersion(errorReply(httpStatusFor(era, INVALID_PARAMS), { code: INVALID_PARAMS, message: reason }, id), version);
}

function paramHeaders(headers: Headers): Record<string, string> | undefined {
  let found: Record<string, string> | undefined;
  headers.forEach((value, name) => {
    // A null-prototype table: a header named mcp-param-__proto__ is a parameter like any other.
    if (name.startsWith(H_PARAM_PREFIX)) (found ??= Object.create(null) as Record<string, string>)[name.slice(H_PARAM_PREFIX.length)] = value;
  });
  return found;
}
