/**
 * What the operator may learn about one HTTP request to the MCP endpoint, gathered as the request goes down the
 * path and reported once when it is done (the log line, the spans). It holds only low-risk facts: the method,
 * the tool's name, the kind of caller (never who) and of client, the era, the status, durations, the error's kind,
 * and the client's trace context. Never a token, an id the caller is known by, message text or arguments.
 *
 * Each MCP message has a span (an Operation): a single message's is the request's Observation itself, and each
 * message of a 2025-03-26 batch has its own, as the OpenTelemetry MCP conventions and mcp-handler have one per message.
 */

import type { Classified } from '../protocol/classify.js';
import { H_USER_AGENT } from '../protocol/headers.js';
import { isObject, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc.js';
import { META_CLIENT_INFO } from '../protocol/meta.js';
import { servesMethod, type Era } from '../protocol/methods.js';
import { TASK_STATUS_NOTIFICATION } from '../protocol/tasks.js';
import { H_TRACEPARENT, H_TRACESTATE, META_TRACEPARENT, META_TRACESTATE, readTraceContext, type TraceContext } from '../protocol/trace-context.js';
import { PAYMENT_REQUIRED } from '../protocol/errors.js';
import { REFUSAL, type CallObservation, type Principal, type RefusalReason, type ToolFailure } from '../server/context.js';
import { StoreUnavailableError } from '../store/types.js';
import { UsageMeter, type UsageTotal } from '../usage/meter.js';
import { addTotals } from '../usage/report.js';
import { outcomeOf, reachedTarget, type Answer, type Ended } from './outcome.js';
import { startRequestSpan, type CallerClues, type RequestSpan } from './tracing.js';

/** Who called, by kind: a verified bearer token, a session the server issued, both, or neither. */
export type CallerKind = 'anonymous' | 'token' | 'session' | 'token+session';

/** Client-chosen names (a method, a tool) are cut here: enough for any real name, too little to smuggle text. */
const MAX_NAME = 64;
const name = (value: unknown): string | undefined => (typeof value === 'string' ? value.slice(0, MAX_NAME) : undefined);
/** mcp-handler reads at most this much of a User-Agent. */
const MAX_USER_AGENT = 256;

/** Notifications a client sends, which a span names as themselves; any other method no table serves is `other`. */
const CLIENT_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'notifications/roots/list_changed', TASK_STATUS_NOTIFICATION,
]);

/** The methods whose target (`params.name`) a span names once the reply shows the call reached it. */
const TARGETED: ReadonlySet<string> = new Set(['tools/call', 'prompts/get']);

/** One MCP message as its span reports it: what it asks, how it ended, and the trace it carries on. */
export class Operation implements CallObservation {
  /** Epoch ms the message arrived. */
  readonly startedAt = Date.now();
  readonly #start = performance.now();
  method?: string;
  /**
   * `mcp.method.name` on the span: the method when this server knows it, else `other`, so a client cannot mint span
   * names or metric series (mcp-handler does the same); undefined for a message that is no request or notification.
   */
  methodName?: string;
  /** The tool (tools/call) or prompt (prompts/get) the message names. */
  target?: string;
  protocolVersion?: string;
  requestId?: RequestId;
  isRequest = false;
  /** `clientInfo.name` the message carries (legacy `initialize`, 2026-07-28 `_meta`). */
  clientInfoName?: string;
  /** A JSON-RPC error code, `tool_error`, or the failure that became a 5xx; see `errorType`. */
  errorKind?: string;
  /** Why an upstream agent failed, as a code (`upstream_http_401`); never its text. */
  cause?: string;
  /** The client's trace context: the message's `_meta` if it has one, else the HTTP request's headers. */
  trace?: TraceContext;
  /** What an upstream request carries on (the span's context once tracing runs, else the client's). */
  traceHeaders?: Record<string, string>;
  /** The agent a chat call reached (noteAgent), for the usage counters. */
  agent?: string;
  /** Why the call was refused before it ran (noteRefusal). */
  refusal?: RefusalReason;
  /** What its settled payment earned, in millionths of a dollar (noteEarned). */
  earnedMicroUsd?: number;
  #answered?: { reply: JsonRpcResponse | undefined };
  #toolFailure?: ToolFailure;
  #failed = false;
  #span?: RequestSpan;
  #usage?: UsageMeter;

  constructor(readonly clues: CallerClues, readonly parent?: Operation) {}

  /** The message's call's token meter (lib/usage/meter.ts), which the transport hands the call; made when first read. */
  get usage(): UsageMeter {
    return (this.#usage ??= new UsageMeter());
  }

  /** What the message's agents spent, for the span and the log line; undefined when it made no model request. */
  usageTotal(): UsageTotal | undefined {
    const total = this.#usage?.total;
    return total && total.modelRequests > 0 ? total : undefined;
  }

  elapsedMs(): number {
    return performance.now() - this.#start;
  }

  /** The method, target, request id, client name and `_meta` trace context of one message of the body. */
  read(message: unknown, era: Era): void {
    if (!isObject(message)) return;
    this.method = name(message.method);
    const known = this.method !== undefined && (servesMethod(era, this.method) || CLIENT_NOTIFICATIONS.has(this.method));
    this.methodName = this.method === undefined ? undefined : known ? this.method : 'other';
    if (typeof message.id === 'string' || typeof message.id === 'number') this.requestId = message.id;
    this.isRequest = this.method !== undefined && 'id' in message;
    const params = isObject(message.params) ? message.params : undefined;
    if (this.method !== undefined && TARGETED.has(this.method)) this.target = name(params?.name);
    const meta = isObject(params?._meta) ? params._meta : undefined;
    const info = this.method === 'initialize' && isObject(params?.clientInfo) ? params.clientInfo : meta?.[META_CLIENT_INFO];
    this.clientInfoName = isObject(info) ? name(info.name) : undefined;
    const own = meta && readTraceContext(meta[META_TRACEPARENT], meta[META_TRACESTATE]);
    if (own) this.carry(this.trace = own);
  }

  /**
   * The call's reply: a JSON-RPC error is its code, a tool result with isError is `tool_error` (MCP semconv); a call
   * sent back to pay whose reply is neither (x402's `payment_required` result) is PAYMENT_REQUIRED's code, as a paid
   * read's error is, so it is not read as a success.
   */
  noteReply = (reply: JsonRpcResponse | undefined): JsonRpcResponse | undefined => {
    this.#answered = { reply };
    if (reply && 'error' in reply) this.errorKind = String(reply.error.code);
    else if (reply && isObject(reply.result) && reply.result.isError === true) this.errorKind = 'tool_error';
    else if (reply && this.refusal === REFUSAL.payment) this.errorKind = String(PAYMENT_REQUIRED);
    return reply;
  };

  noteToolFailure(failure: ToolFailure): void {
    this.#toolFailure = failure;
  }

  noteAgent(agentId: string): void {
    this.agent = agentId.slice(0, MAX_NAME);
  }

  noteRefusal(reason: RefusalReason): void {
    this.refusal = reason;
  }

  noteEarned(microUsd: number): void {
    this.earnedMicroUsd = (this.earnedMicroUsd ?? 0) + microUsd;
  }

  /** A failure no step turned into a reply. */
  noteFailure(error: unknown): void {
    this.#failed = true;
    this.errorKind = error instanceof StoreUnavailableError ? 'store_unavailable' : 'internal';
  }

  noteUpstream(ms: number): void {
    this.parent?.noteUpstream(ms);
  }

  /** Why an upstream agent failed; a batch's message says it for the request's log line too. */
  noteCause(cause: string): void {
    this.cause = cause.slice(0, MAX_NAME);
    this.parent?.noteCause(cause);
  }

  /** Starts the message's span when an OpenTelemetry SDK is registered (lib/observe/tracing.ts); else nothing. */
  begin(): Promise<void> | undefined {
    // mcp-handler writes spans for requests and notifications; a client's response to us is neither.
    if (this.methodName === undefined) return undefined;
    const span = startRequestSpan(this);
    if (span instanceof Promise) return span.then((started) => void (this.#span = started));
    this.#span = span;
    return undefined;
  }

  /** Runs the call in the span's context, so instrumented code under it (fetch) joins the trace. */
  within<T>(run: () => T): T {
    return this.#span ? this.#span.within(run) : run();
  }

  /** Ends the span, if one was started, with the request's HTTP status. */
  endSpan(status: number): void {
    this.#span?.end(status);
  }

  /** `error.type` of the OpenTelemetry conventions: the error kind, or the HTTP status of a refusal. */
  errorType(status: number): string | undefined {
    return this.errorKind ?? (status >= 400 ? String(status) : undefined);
  }

  /** How the message ended, for `vercel.rpc.outcome` (outcome.ts). */
  ended(status: number): Ended {
    return outcomeOf(this.#answer(status));
  }

  /** True when the reply shows the call reached its tool or prompt, which the span may then name. */
  reachedTarget(): boolean {
    return reachedTarget(this.#answer(0));
  }

  /** True once the dispatcher answered the message (a refusal of the HTTP request never reaches it). */
  wasAnswered(): boolean {
    return this.#answered !== undefined;
  }

  /** The reply's result, when it is one. */
  result(): Record<string, unknown> | undefined {
    const reply = this.#answered?.reply;
    return reply && 'result' in reply && isObject(reply.result) ? reply.result : undefined;
  }

  /** The JSON-RPC error code of the reply, if it is an error. */
  errorCode(): number | undefined {
    const reply = this.#answered?.reply;
    return reply && 'error' in reply ? reply.error.code : undefined;
  }

  /** Sets what upstream requests carry on; tracing calls it with the span's own context. */
  carry(context: TraceContext | undefined): void {
    this.traceHeaders = context && (context.tracestate
      ? { [H_TRACEPARENT]: context.traceparent, [H_TRACESTATE]: context.tracestate }
      : { [H_TRACEPARENT]: context.traceparent });
  }

  #answer(status: number): Answer {
    return {
      method: this.methodName ?? 'other', isRequest: this.isRequest, answered: this.#answered, toolFailure: this.#toolFailure, refusal: this.refusal,
      failed: this.#failed, status,
    };
  }
}

/** One message of a 2025-03-26 batch: its own span, its upstream time counted for the request too. */
export class BatchMessage extends Operation {
  /** Runs the message's call in its span and ends the span with the answer (the batch's reply is HTTP 200). */
  async run(call: () => Promise<JsonRpcResponse | undefined>): Promise<JsonRpcResponse | undefined> {
    const starting = this.begin();
    if (starting) await starting;
    try {
      return this.noteReply(await this.within(call));
    } catch (error) {
      this.noteFailure(error);
      throw error;
    } finally {
      this.endSpan(200);
    }
  }
}

/** The request: the log line's record, and the span of its message unless it is a batch. */
export class Observation extends Operation {
  era?: Era;
  /** Messages in a 2025-03-26 batch; undefined for a single message. */
  batch?: number;
  caller: CallerKind = 'anonymous';
  upstreamMs?: number;
  /** The trace context of the HTTP request's headers, which a batch's messages without their own carry on. */
  readonly #headerTrace?: TraceContext;
  /** A batch's messages, whose usage the request's line sums. */
  readonly #messages: BatchMessage[] = [];
  #settled?: Promise<void>;
  #done = true;
  #who: { principal?: Principal; session?: string } = {};

  constructor(request: Request) {
    super({ authorized: false, userAgent: request.headers.get(H_USER_AGENT)?.slice(0, MAX_USER_AGENT) });
    this.#headerTrace = this.trace = readTraceContext(request.headers.get(H_TRACEPARENT), request.headers.get(H_TRACESTATE));
    this.carry(this.trace);
  }

  /** The tool a tools/call names, for the log line. */
  get tool(): string | undefined {
    return this.method === 'tools/call' ? this.target : undefined;
  }

  /** The era, version, and what the single message says (a batch is read message by message, `message`). */
  noteMessages(classified: Classified): void {
    if (classified.kind === 'reject') return;
    this.era = classified.kind;
    this.protocolVersion = classified.kind === 'modern' ? classified.meta.protocolVersion : classified.version;
    if (classified.kind === 'legacy' && classified.batch) {
      this.batch = classified.messages.length;
      this.method = 'batch';
      return;
    }
    this.read(classified.kind === 'modern' ? classified.message : classified.messages[0], classified.kind);
  }

  /** One message of the batch, with a span of its own once it runs. */
  message(message: unknown): BatchMessage {
    const one = new BatchMessage(this.clues, this);
    one.protocolVersion = this.protocolVersion;
    one.trace = this.#headerTrace;
    one.carry(one.trace);
    one.read(message, this.era!);
    this.#messages.push(one);
    return one;
  }

  /**
   * The caller, for the usage counters alone (lib/usage/counter.ts labels it under the server's key); neither the log
   * line nor a span reads it.
   */
  get who(): { principal?: Principal; session?: string } {
    return this.#who;
  }

  /** The request's messages as the usage counters count them: a batch's each, else the request itself. */
  operations(): Operation[] {
    return this.batch === undefined ? [this] : this.#messages;
  }

  noteCaller(principal: Principal | undefined, session: string | undefined): void {
    this.#who = { principal, session };
    this.caller = principal ? (session ? 'token+session' : 'token') : session ? 'session' : 'anonymous';
    this.clues.authorized = principal !== undefined;
    this.clues.clientId = principal?.clientId;
  }

  /** A batch's: the sum of its messages'. */
  override usageTotal(): UsageTotal | undefined {
    if (this.batch === undefined) return super.usageTotal();
    let sum: UsageTotal | undefined;
    for (const one of this.#messages) {
      const total = one.usageTotal();
      if (total) sum = sum ? addTotals(sum, total) : total;
    }
    return sum;
  }

  override noteUpstream(ms: number): void {
    this.upstreamMs = (this.upstreamMs ?? 0) + ms;
  }

  /** A batch's messages have spans of their own (`message`); the request has one only for a single message. */
  override begin(): Promise<void> | undefined {
    return this.batch === undefined ? super.begin() : undefined;
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
}
