/**
 * Runs a classified POST through the dispatcher and frames the reply. Legacy: a single message gets a single
 * reply (never a one-element array), a batch gets an array, messages without replies get 202.
 * Modern: one request, cancelled when the client closes its response stream.
 */

import type { Classified } from '../protocol/classify.js';
import { INVALID_PARAMS, INVALID_REQUEST, httpStatusFor } from '../protocol/errors.js';
import { H_PARAM_PREFIX, H_SESSION_ID } from '../protocol/headers.js';
import { isRequest, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc.js';
import { applyHeaderPayment, refuseBatchPayment } from '../pay/header.js';
import { allowsSsePolling } from '../protocol/revisions.js';
import { Cancellation } from '../server/cancellation.js';
import { callerKey } from '../server/caller.js';
import type { CallContext, Principal } from '../server/context.js';
import type { Dispatch } from '../server/dispatch.js';
import type { Observation } from '../observe/observation.js';
import type { Store } from '../store/types.js';
import type { RequestBounds } from './bounds.js';
import { frameCall } from './frame.js';
import { legacyReplyVersion, withProtocolVersion } from './protocol-version.js';
import { accepted, errorReply, jsonReply } from './replies.js';
import { sessionCapabilities, startsSession, type Sessions } from './session.js';

export interface ServeDeps {
  dispatch: Dispatch;
  store: Store;
  sessions: Sessions;
  /** The body's bounds, which a payment header's decoded payload is held to as well. */
  bounds: Pick<RequestBounds, 'maxBodyBytes' | 'maxJsonDepth'>;
  /** Headers for an error reply of this request, e.g. the insufficient_scope challenge of a 403. */
  errorHeaders?(request: Request, error: { code: number; data?: unknown }): Record<string, string> | undefined;
}

function headersFor(deps: ServeDeps, request: Request) {
  return (reply: JsonRpcResponse) => ('error' in reply ? deps.errorHeaders?.(request, reply.error) : undefined);
}

type Ok<K> = Extract<Classified, { kind: K }>;

/** Legacy: `session` is the verified id the server issued to this client, if it sent one. */
export async function serveLegacy(
  request: Request, classified: Ok<'legacy'>, deps: ServeDeps, observation: Observation, principal?: Principal, session?: string,
) {
  const caller = callerKey(principal, session);
  observation.noteCaller(principal, session);
  const starting = observation.begin();
  if (starting) await starting;
  const base = {
    era: 'legacy' as const,
    protocolVersion: classified.version,
    principal,
    caller,
    clientCapabilities: session === undefined ? {} : sessionCapabilities(session),
    store: deps.store,
    cancelByNotification: true,
    observation,
  };
  if (classified.batch) {
    const unpayable = refuseBatchPayment(request.headers, classified.messages);
    if (unpayable) return withProtocolVersion(errorReply(400, { code: INVALID_REQUEST, message: unpayable }), classified.version);
    const replies = await observation.within(() => Promise.all(
      classified.messages.map((m) => deps.dispatch(m, base).then(observation.noteReply)),
    ));
    const answered = replies.filter((r): r is JsonRpcResponse => r !== undefined);
    return withProtocolVersion(answered.length ? jsonReply(answered) : accepted(), classified.version);
  }
  const paid = applyHeaderPayment(request.headers, classified.messages[0], deps.bounds);
  if (paid.kind === 'refused') return refusePayment('legacy', classified.messages[0], paid.reason, legacyReplyVersion(classified.messages[0], classified.version));
  const { message } = paid;
  // Only a caller the server recognises may resume a stream, so only its streams are logged (SEP-1699).
  const polling = allowsSsePolling(classified.version) && caller !== undefined;
  const issued = startsSession(message) ? await deps.sessions.issue(principal, message.params?.capabilities) : undefined;
  const errorHeaders = headersFor(deps, request);
  // Legacy clients cancel explicitly (notifications/cancelled, watched by the dispatcher); a dropped connection
  // is not a cancellation (2025-11-25 transports), so a legacy call has no signal of its own.
  const framed = await frameCall({
    run: (outbound) => observation.runCall(() => deps.dispatch(message, { ...base, outbound })),
    statusOf: (reply) => ('error' in reply ? httpStatusFor('legacy', reply.error.code) : 200),
    headersOf: (reply) => ('error' in reply ? errorHeaders(reply) : issued ? { [H_SESSION_ID]: issued } : undefined),
    log: polling ? { store: deps.store, streamId: crypto.randomUUID(), owner: caller } : undefined,
    isRequest: isRequest(message),
    onClientGone: () => undefined,
  });
  return withProtocolVersion(framed, legacyReplyVersion(message, classified.version));
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
  // The client cancels by closing its response stream or dropping the request; the signal is made if read.
  const gone = new Cancellation(() => request.signal);
  const call: Omit<CallContext, 'outbound'> = {
    era: 'modern',
    protocolVersion: version,
    principal,
    caller: callerKey(principal, undefined),
    clientCapabilities: classified.meta.clientCapabilities,
    logLevel: classified.meta.logLevel,
    signal: () => gone.signal,
    store: deps.store,
    paramHeaders: paramHeaders(request.headers),
    observation,
  };
  return withProtocolVersion(await frameCall({
    run: (outbound) => observation.runCall(() => deps.dispatch(message, { ...call, outbound })),
    statusOf: (reply) => ('error' in reply ? httpStatusFor('modern', reply.error.code) : 200),
    headersOf: headersFor(deps, request),
    isRequest: true,
    onClientGone: () => gone.cancel(new Error('The client closed the response stream.')),
  }), version);
}

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
