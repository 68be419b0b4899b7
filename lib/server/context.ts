/**
 * The per-request context handed to every method and tool: who is calling, which era, what the client can
 * do, and the ways back to it (progress, logs, server-to-client requests). Built fresh for each request;
 * nothing here lives at module scope.
 */

import { McpError, INVALID_PARAMS } from '../protocol/errors.js';
import { isObject, notificationMessage, type JsonRpcMessage, type RequestId } from '../protocol/jsonrpc.js';
import { isLogLevel, logLevelPasses, type Era, type LogLevel } from '../protocol/methods.js';
import type { Store } from '../store/types.js';
import { Caller } from './caller.js';
import { Cancellation, type CancelView, type SignalSource } from './cancellation.js';
import { requestClient } from './client-requests.js';
import type { Keyring } from './keyring.js';
import type { PrincipalKind } from './principal-key.js';
import { UsageMeter } from '../usage/meter.js';

/** A verified caller: from a bearer token, or from in-process props treated the same way. */
export interface Principal {
  /** How it signed in (lib/auth/modes); absent for a principal the deployment's own code names in process. */
  kind?: PrincipalKind;
  /** Who it is within its kind: a token's `sub`, an API key's name. State is keyed by principalKey, never by this alone. */
  subject: string;
  clientId?: string;
  scopes: string[];
}

/** Where messages for the client go while a request runs (an SSE stream, an in-process pipe). */
export interface Outbound {
  write(message: JsonRpcMessage): void;
  /** Ends the client's stream early while the call goes on (legacy SSE polling, SEP-1699); optional. */
  closeStream?(): void;
}

/**
 * Why a tool call failed, as the tool knows it, for the call's span (mcp-handler 2.4 `experimental_setToolOutcome`):
 * `api_error` an upstream the tool called failed, `tool_error` an expected failure, `execution_failure` the tool broke,
 * `request_error` the caller asked for what the tool cannot do; `errorType` a short code such as `rate_limited`.
 */
export interface ToolFailure {
  outcome: 'api_error' | 'tool_error' | 'execution_failure' | 'request_error';
  errorType: string;
}

/** Why a call was refused before it ran, as the usage counters count it (CallObservation.noteRefusal; lib/usage/outcome.ts). */
export const REFUSAL = {
  rateLimit: 'rate-limit', tokenBudget: 'token-budget', scope: 'scope', payment: 'payment', concurrency: 'concurrency',
  signIn: 'sign-in', forbidden: 'forbidden', tooLarge: 'too-large', instanceFull: 'instance-full',
} as const;

export type RefusalReason = (typeof REFUSAL)[keyof typeof REFUSAL];

/** The request's observation (lib/observe): where a tool reports its upstream time and finds the trace to carry on. */
export interface CallObservation {
  noteUpstream(ms: number): void;
  /** Why an upstream agent failed, as a code (AgentError `code`); the request log's `cause`. */
  noteCause?(cause: string): void;
  /** Says why the call's isError result failed; the span reports it (only an isError result of tools/call reads it). */
  noteToolFailure?(failure: ToolFailure): void;
  /** Which agent a chat call reached (its id), for the usage counters; a call that names none is counted by its tool. */
  noteAgent?(agentId: string): void;
  /** Why the call was refused before it ran (REFUSAL: a rate limit, a token budget, a payment...). */
  noteRefusal?(reason: RefusalReason): void;
  /** What a settled payment earned, in millionths of a dollar (lib/pay). */
  noteEarned?(microUsd: number): void;
  /** `traceparent` (and `tracestate`) for a request this call makes on its behalf. */
  readonly traceHeaders?: Record<string, string>;
}

/** Why a bound of the caller's refused work a request sets off (a nested agent turn): its variable and a clause a model reads. */
export interface ChargeRefusal {
  variable: string;
  reason: string;
  /** When the spent budget has room again, where that is known (a token budget crossed mid-call). */
  retryAfterSeconds?: number;
}

/** Charges the caller's rate limits `cost` requests (default 1) for work beyond the request itself. */
export type ChargeCaller = (cost?: number) => Promise<ChargeRefusal | undefined>;

/** Why a per-tool limit (RATE_LIMIT_TOOLS) refused a call: a sentence a model reads, and when to try again. */
export interface ToolLimitRefusal {
  message: string;
  retryAfterSeconds: number;
}

/** Counts one call of tool `name` against its caller's per-tool limits: the refusal, or undefined to go on. */
export type LimitTool = (name: string) => Promise<ToolLimitRefusal | undefined>;

/** What one chat call spends from its caller's token budgets (lib/limits/tokens.ts), charged as its usage arrives. */
export interface TokenSpend {
  /** Why no further model request or tool step of the call may start (a budget crossed mid-way); undefined while there is room. */
  readonly stopped: ChargeRefusal | undefined;
  /** Waits for the charges already sent, so that `stopped` counts every report so far. */
  settled(): Promise<void>;
  /** Stops charging the call's later reports and waits for the charges already sent. */
  end(): Promise<void>;
}

/**
 * The caller's token budgets: checked before a chat call's agent runs, which is refused (with when to try again)
 * while one is spent; otherwise the call's meter is charged to them as its usage arrives.
 */
export type TokenBudget = (agentId: string, meter: UsageMeter) => Promise<{ refused: ToolLimitRefusal } | { spend: TokenSpend }>;

/**
 * Where a call whose reply may be due before its work ends says how far it got (lib/tasks/on-behalf.ts): what the
 * answers given while it goes on, and the calls that collect it, show. Present only on such a call.
 */
export interface RunReport {
  /** Facts the answers about the run need (the chat tool: its agent_id and session_id). */
  describe(facts: Record<string, string>): void;
  /** More of the reply's text. */
  text(chunk: string): void;
  /** The latest status line ("Waiting for 1 earlier message(s) in this session."). */
  note(line: string): void;
  /**
   * Keeps no text or status line from now on: the run's reply may not be shown before the run ends (a paid call,
   * withReplyHeld below); the answers about it say so.
   */
  withhold(): void;
}

/** What a transport knows about one call; the dispatcher adds the rest. */
export interface CallContext {
  era: Era;
  protocolVersion: string;
  principal?: Principal;
  /**
   * Who calls (lib/server/caller.ts): its principal, the session the server issued to this client, the address the
   * request came from, and every key of its state, budgets and shares. Absent: the principal alone.
   */
  caller?: Caller;
  clientCapabilities: Record<string, unknown>;
  /** Modern wire: the per-request `_meta` log level; legacy: the level in force (none means default). */
  logLevel?: string;
  /** What cancels the call besides the dispatcher's own watch (a modern client closing its stream, a closed transport). */
  signal?: SignalSource;
  outbound?: Outbound;
  store: Store;
  /** True when `notifications/cancelled` can reach this call (legacy HTTP, in-process); modern HTTP cancels by closing the stream. */
  cancelByNotification?: boolean;
  /** `Mcp-Param-*` headers by lower-cased parameter name (modern wire, for x-mcp-header checks). */
  paramHeaders?: Record<string, string>;
  observation?: CallObservation;
  /**
   * Charges the request's caller (the HTTP request's IP and principal) for each nested agent turn a chat call runs;
   * absent when no rate limit is on, or the call did not come over HTTP (in process).
   */
  chargeCaller?: ChargeCaller;
  /**
   * Counts a tools/call against the caller's per-tool limits (the HTTP request's principal, else its address), on
   * the request and on the tool calls its agents make for it; absent when RATE_LIMIT_TOOLS is unset, or the call
   * came from an in-process client of the deployment's own code.
   */
  limitTool?: LimitTool;
  /**
   * The token budgets of the caller (the HTTP request's principal, else its address) a chat call spends; absent when
   * none is set, or the call came from an in-process client of the deployment's own code.
   */
  tokenBudget?: TokenBudget;
  /** Set on a call that may answer before its work ends (lib/tasks/on-behalf.ts); the work reports its progress here. */
  report?: RunReport;
  /**
   * Hands the call's room on the instance (MCP_MAX_CALLS_PER_INSTANCE) to work that goes on after the call answers (a
   * run past its reply deadline, a task's work): the call's end then no longer gives it back, and the work does so by
   * calling what this returns. Absent where the call took no room (in process).
   */
  keepRoom?(): () => void;
  /**
   * The tokens this call's agents spend (lib/usage/meter.ts; docs/architecture.md rule 17): one meter for the whole
   * call, nested agents and the tool loop included. The HTTP layer makes it so the request's log line can read it.
   */
  usage?: UsageMeter;
}

export interface RequestContext extends CallContext {
  readonly caller: Caller;
  /** The call's token meter: the transport's when it made one, else the call's own. */
  readonly usage: UsageMeter;
  /** Aborts when the call is cancelled; made when first read. */
  signal: AbortSignal;
  /** The same cancellation without an AbortSignal (cancellation.ts): what the call's own work listens to. */
  cancellation: CancelView;
  requestId: RequestId;
  method: string;
  /** Reports progress when the client sent a progress token; a no-op otherwise. */
  progress(progress: number, total?: number, message?: string): void;
  /** True when `progress` sends anything: the client sent a progress token and the call has a way back to it. */
  readonly sendsProgress: boolean;
  /** True when nothing the work writes may reach the client before the call returns (withReplyHeld). */
  readonly holdsReply: boolean;
  /** Sends a log notification when the client asked for logs at this level. */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** True when the client declared the capability (modern `_meta`, or assumed on the legacy wire). */
  supports(capability: string): boolean;
  /**
   * Legacy wire: asks the client (sampling, elicitation, roots) and waits for its answer, at most `timeoutMs`
   * (5 min by default) and no longer than the call or `signal` lasts.
   */
  requestClient(method: string, params: Record<string, unknown>, options?: ClientRequestOptions): Promise<Record<string, unknown>>;
  /** Modern wire (MRTR): the client's answers to our earlier `inputRequests`, by key. */
  inputResponses: Record<string, unknown>;
  /** Modern wire (MRTR): the verified application state we asked the client to carry. */
  requestState?: unknown;
  /** The server's MAC key, for ids the server issues to clients and later trusts (e.g. conversation ids). */
  keyring: Keyring;
  /** The request's `params._meta` as the client sent it (e.g. an x402 payment under `x402/payment`). */
  meta: Record<string, unknown>;
}

export interface ClientRequestOptions {
  timeoutMs?: number;
  /** Ends the wait before the call does (e.g. the mounted server that asked withdrew its question). */
  signal?: AbortSignal;
}

/** Legacy clients get logs at `info` and above unless a level is known; see docs/protocol.md "Both eras on one endpoint". */
const LEGACY_DEFAULT_LOG_LEVEL: LogLevel = 'info';

/**
 * One request's context. A class with its fields written out rather than `{ ...call, ... }`, a literal V8 builds
 * slowly (docs/performance.md "Where the code's shape comes from"). A tool may take the methods
 * apart (`run(args, { progress, signal })`), so each is a function of its own, made when first read: most calls
 * read none of them, and a chat call makes two contexts.
 */
class Context implements RequestContext {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly principal?: Principal;
  readonly caller: Caller;
  readonly clientCapabilities: Record<string, unknown>;
  readonly logLevel?: string;
  readonly outbound?: Outbound;
  readonly store: Store;
  readonly cancelByNotification?: boolean;
  readonly paramHeaders?: Record<string, string>;
  readonly observation?: CallObservation;
  readonly chargeCaller?: ChargeCaller;
  readonly limitTool?: LimitTool;
  readonly tokenBudget?: TokenBudget;
  readonly report?: RunReport;
  readonly keepRoom?: () => () => void;
  readonly usage: UsageMeter;
  readonly inputResponses: Record<string, unknown>;
  readonly requestState?: unknown;
  readonly meta: Record<string, unknown>;
  readonly keyring: Keyring;
  readonly holdsReply: boolean;
  readonly #cancellation: Cancellation;
  readonly #threshold: string | undefined;
  #lastProgress = -Infinity;
  #progress: RequestContext['progress'] | undefined;
  #log: RequestContext['log'] | undefined;
  #supports: RequestContext['supports'] | undefined;
  #requestClient: RequestContext['requestClient'] | undefined;

  constructor(
    call: CallContext,
    readonly requestId: RequestId,
    readonly method: string,
    params: Record<string, unknown>,
    extra: ContextExtra,
  ) {
    this.era = call.era;
    this.protocolVersion = call.protocolVersion;
    this.principal = call.principal;
    this.caller = call.caller ?? new Caller(call.principal);
    this.clientCapabilities = call.clientCapabilities;
    this.logLevel = call.logLevel;
    this.outbound = call.outbound;
    this.store = call.store;
    this.cancelByNotification = call.cancelByNotification;
    this.paramHeaders = call.paramHeaders;
    this.observation = call.observation;
    this.chargeCaller = call.chargeCaller;
    this.limitTool = call.limitTool;
    this.tokenBudget = call.tokenBudget;
    this.report = call.report;
    this.keepRoom = call.keepRoom;
    this.usage = call.usage ?? new UsageMeter();
    this.inputResponses = extra.inputResponses ?? NO_ANSWERS;
    this.requestState = extra.requestState;
    this.meta = isObject(params._meta) ? params._meta : {};
    this.keyring = extra.keyring;
    this.#cancellation = extra.cancellation ?? new Cancellation(call.signal);
    this.holdsReply = extra.holdsReply === true;
    this.#threshold = call.era === 'modern' ? call.logLevel : (call.logLevel ?? LEGACY_DEFAULT_LOG_LEVEL);
  }

  get signal(): AbortSignal {
    return this.#cancellation.signal;
  }

  get cancellation(): CancelView {
    return this.#cancellation;
  }

  get sendsProgress(): boolean {
    return this.meta.progressToken !== undefined && this.outbound !== undefined;
  }

  get progress(): RequestContext['progress'] {
    return (this.#progress ??= (progress, total, message) => this.#sendProgress(progress, total, message));
  }

  get log(): RequestContext['log'] {
    return (this.#log ??= (level, data, logger) => this.#sendLog(level, data, logger));
  }

  get supports(): RequestContext['supports'] {
    return (this.#supports ??= (capability) => this.era === 'legacy' || isObject(this.clientCapabilities[capability]));
  }

  get requestClient(): RequestContext['requestClient'] {
    return (this.#requestClient ??= (clientMethod, clientParams, options) => this.#requestClientNow(clientMethod, clientParams, options));
  }

  #sendProgress(progress: number, total?: number, message?: string): void {
    if (!this.sendsProgress || this.#cancellation.cancelled) return;
    const progressToken = this.meta.progressToken;
    // Progress MUST increase (basic/utilities/progress); a stale or equal value is dropped, not sent.
    if (!(progress > this.#lastProgress)) return;
    this.#lastProgress = progress;
    const said = message === undefined ? undefined : this.holdsReply ? HELD_PROGRESS_MESSAGE : message;
    this.outbound!.write(notificationMessage('notifications/progress', {
      progressToken,
      progress,
      ...(total !== undefined ? { total } : {}),
      ...(said !== undefined ? { message: said } : {}),
    }));
  }

  #sendLog(level: LogLevel, data: unknown, logger?: string): void {
    const threshold = this.#threshold;
    if (!this.outbound || this.holdsReply || this.#cancellation.cancelled || !isLogLevel(threshold)) return;
    if (!logLevelPasses(level, threshold)) return;
    this.outbound.write(notificationMessage('notifications/message', {
      level,
      data,
      ...(logger !== undefined ? { logger } : {}),
    }));
  }

  /** This call's context for work whose reply is held (withReplyHeld): the same call, cancellation and way back. */
  static holding(ctx: Context): Context {
    ctx.report?.withhold();
    return new Context(ctx, ctx.requestId, ctx.method, { _meta: ctx.meta }, {
      keyring: ctx.keyring, inputResponses: ctx.inputResponses, requestState: ctx.requestState, cancellation: ctx.#cancellation, holdsReply: true,
    });
  }

  #requestClientNow(clientMethod: string, clientParams: Record<string, unknown>, options: ClientRequestOptions = {}): Promise<Record<string, unknown>> {
    if (this.era !== 'legacy' || !this.outbound) {
      throw new McpError(INVALID_PARAMS, `${clientMethod} cannot be sent on this transport.`);
    }
    const { outbound } = this;
    // An outbound may be an object whose `write` is a method (lib/http/frame.ts): called on it, never handed on alone.
    const channel = { keyring: this.keyring, store: this.store, caller: this.caller.key, write: (message: JsonRpcMessage) => outbound.write(message) };
    const signal = options.signal ? AbortSignal.any([this.signal, options.signal]) : this.signal;
    return requestClient(channel, signal, clientMethod, clientParams, options.timeoutMs);
  }
}

/** The answers of a call that carries none: read, never written. */
const NO_ANSWERS: Record<string, unknown> = Object.freeze({});

interface ContextExtra {
  /** The server's MAC key, which binds our requests to the client to this caller. */
  keyring: Keyring;
  inputResponses?: Record<string, unknown>;
  requestState?: unknown;
  /** The call's cancellation when the dispatcher watches for one; else one linked to `call.signal`. */
  cancellation?: Cancellation;
  holdsReply?: boolean;
}

export function createRequestContext(
  call: CallContext,
  requestId: RequestId,
  method: string,
  params: Record<string, unknown>,
  extra: ContextExtra,
): RequestContext {
  return new Context(call, requestId, method, params, extra);
}

/** What a progress notification of a held call says, whatever its work wrote: a status, never part of the reply. */
export const HELD_PROGRESS_MESSAGE = 'Working on it; the reply is sent once it is paid.';

/**
 * `ctx` for work whose reply may not reach the client before the work returns and its caller lets it out: a paid
 * call, whose result leaves only once settled (lib/pay/paywall.ts; docs/architecture.md rule 15). Every way
 * the work tells the client what it has while it runs is gated here, in one place: progress notifications keep their
 * numbers and say HELD_PROGRESS_MESSAGE, log notifications are not sent, and the run's report (what the answers at a
 * reply deadline and the calls that collect a run show) keeps no text or status line. Questions the work asks the
 * client (requestClient, input requests) still go: they are not the reply, and a call that asks is not yet settled.
 */
export function withReplyHeld(ctx: RequestContext): RequestContext {
  if (ctx.holdsReply) return ctx;
  if (!(ctx instanceof Context)) throw new TypeError('withReplyHeld: not a context made by createRequestContext.');
  return Context.holding(ctx);
}
