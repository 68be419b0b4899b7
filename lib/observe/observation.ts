/**
 * What the operator may learn about one HTTP request to the MCP endpoint, gathered as the request goes down the
 * path and reported once when it is done (the log line, the span). It holds only low-risk facts: the method,
 * the tool's name, the kind of caller (never who), the era, the status, durations, the error's kind, and the
 * client's trace context. Never a token, an id the caller is known by, message text or arguments.
 */

import type { Classified } from '../protocol/classify.js';
import { isObject, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc.js';
import type { Era } from '../protocol/methods.js';
import { H_TRACEPARENT, H_TRACESTATE, META_TRACEPARENT, META_TRACESTATE, readTraceContext, type TraceContext } from '../protocol/trace-context.js';
import type { CallObservation, Principal } from '../server/context.js';
import { StoreUnavailableError } from '../store/types.js';
import { startRequestSpan, type RequestSpan } from './tracing.js';

/** Who called, by kind: a verified bearer token, a session the server issued, both, or neither. */
export type CallerKind = 'anonymous' | 'token' | 'session' | 'token+session';

/** Client-chosen names (a method, a tool) are cut here: enough for any real name, too little to smuggle text. */
const MAX_NAME = 64;
const name = (value: unknown): string | undefined => (typeof value === 'string' ? value.slice(0, MAX_NAME) : undefined);

export class Observation implements CallObservation {
  /** Epoch ms the request arrived. */
  readonly startedAt = Date.now();
  readonly #start = performance.now();
  method?: string;
  tool?: string;
  era?: Era;
  protocolVersion?: string;
  requestId?: RequestId;
  /** Messages in a 2025-03-26 batch; undefined for a single message. */
  batch?: number;
  caller: CallerKind = 'anonymous';
  upstreamMs?: number;
  /** A JSON-RPC error code, `tool_error`, or the failure that became a 5xx; see `errorType`. */
  errorKind?: string;
  /** Why an upstream agent failed, as a code (`upstream_http_401`); never its text. */
  cause?: string;
  /** The client's trace context: the message's `_meta` if it has one, else the HTTP request's headers. */
  trace?: TraceContext;
  /** What an upstream request carries on (the server span's context once tracing runs, else the client's). */
  traceHeaders?: Record<string, string>;
  #settled?: Promise<void>;
  #done = true;
  #span?: RequestSpan;

  constructor(request: Request) {
    this.trace = readTraceContext(request.headers.get(H_TRACEPARENT), request.headers.get(H_TRACESTATE));
    this.carry(this.trace);
  }

  elapsedMs(): number {
    return performance.now() - this.#start;
  }

  /** The method, tool, request id and `_meta` trace context of the classified body. */
  noteMessages(classified: Classified): void {
    if (classified.kind === 'reject') return;
    this.era = classified.kind;
    this.protocolVersion = classified.kind === 'modern' ? classified.meta.protocolVersion : classified.version;
    if (classified.kind === 'legacy' && classified.batch) {
      this.batch = classified.messages.length;
      this.method = 'batch';
      return;
    }
    const message = classified.kind === 'modern' ? classified.message : classified.messages[0];
    if (!isObject(message)) return;
    this.method = name(message.method);
    if (typeof message.id === 'string' || typeof message.id === 'number') this.requestId = message.id;
    const params = isObject(message.params) ? message.params : undefined;
    if (this.method === 'tools/call') this.tool = name(params?.name);
    const meta = isObject(params?._meta) ? params._meta : undefined;
    const own = meta && readTraceContext(meta[META_TRACEPARENT], meta[META_TRACESTATE]);
    if (own) this.carry(this.trace = own);
  }

  noteCaller(principal: Principal | undefined, session: string | undefined): void {
    this.caller = principal ? (session ? 'token+session' : 'token') : session ? 'session' : 'anonymous';
  }

  /** The call's reply: a JSON-RPC error is its code, a tool result with isError is `tool_error` (MCP semconv). */
  noteReply = (reply: JsonRpcResponse | undefined): JsonRpcResponse | undefined => {
    if (reply && 'error' in reply) this.errorKind = String(reply.error.code);
    else if (reply && isObject(reply.result) && reply.result.isError === true) this.errorKind = 'tool_error';
    return reply;
  };

  /** A failure no step turned into a reply. */
  noteFailure(error: unknown): void {
    this.errorKind = error instanceof StoreUnavailableError ? 'store_unavailable' : 'internal';
  }

  noteUpstream(ms: number): void {
    this.upstreamMs = (this.upstreamMs ?? 0) + ms;
  }

  noteCause(cause: string): void {
    this.cause = cause.slice(0, MAX_NAME);
  }

  /** Starts the request's span when an OpenTelemetry SDK is registered (lib/observe/tracing.ts); else nothing. */
  begin(): Promise<void> | undefined {
    // A batch is many operations; the conventions have a span per message, which this does not make (yet).
    if (this.batch !== undefined) return undefined;
    const span = startRequestSpan(this);
    if (span instanceof Promise) return span.then((started) => void (this.#span = started));
    this.#span = span;
    return undefined;
  }

  /** Runs the call in the span's context, so instrumented code under it (fetch) joins the trace. */
  within<T>(run: () => T): T {
    return this.#span ? this.#span.within(run) : run();
  }

  /**
   * Runs one call in the span's context and notes its reply. The call may go on after its response began (an
   * SSE stream): the report waits for it.
   */
  runCall(call: () => Promise<JsonRpcResponse | undefined>): Promise<JsonRpcResponse | undefined> {
    const running = this.within(call).then(this.noteReply);
    this.#done = false;
    const done = () => void (this.#done = true);
    this.#settled = running.then(done, done);
    return running;
  }

  /** Runs `report` when the call is done: at once when it already is. */
  whenDone(report: () => void): void {
    if (this.#done) report();
    else this.#settled!.then(report, report);
  }

  /** Ends the span, if one was started, with the request's HTTP status. */
  endSpan(status: number): void {
    this.#span?.end(status);
  }

  /** `error.type` of the OpenTelemetry conventions: the error kind, or the HTTP status of a refusal. */
  errorType(status: number): string | undefined {
    return this.errorKind ?? (status >= 400 ? String(status) : undefined);
  }

  /** Sets what upstream requests carry on; tracing calls it with the server span's own context. */
  carry(context: TraceContext | undefined): void {
    this.traceHeaders = context && (context.tracestate
      ? { [H_TRACEPARENT]: context.traceparent, [H_TRACESTATE]: context.tracestate }
      : { [H_TRACEPARENT]: context.traceparent });
  }
}
