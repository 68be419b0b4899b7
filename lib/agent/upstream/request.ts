/**
 * One HTTP request to an upstream agent: configured credentials only (the client's token is never forwarded; the
 * headers that carry the key are the format's, upstream/index.ts), a timeout, the caller's AbortSignal, and a cap on the bytes read (AGENT_MAX_REPLY_BYTES) counted
 * here, once, on every byte of every body, whatever the adapter makes of them. Failures become AgentErrors that
 * name the agent and the status; an error body is read ERROR_BODY_BYTES deep and goes to the operator's log, not
 * the caller (error-text.ts).
 */

import { createCountedWarning } from '../../warn.js';
import { AgentError, callCancelled } from '../types.js';
import { ERROR_BODY_BYTES, httpError, type ErrorDetail } from './error-text.js';

export interface UpstreamTarget {
  agentId: string;
  url: string;
  /** The key, for redacting it from error text; it travels in `headers`. */
  apiKey?: string;
  /** Headers every request carries: the format's auth headers (upstream/index.ts) and any the agent configures. */
  headers?: Record<string, string>;
  timeoutMs: number;
  /** The most bytes of body an agent may send (AGENT_MAX_REPLY_BYTES), counted as read. */
  maxReplyBytes: number;
  /** What the caller learns of the upstream's error text (AGENT_ERROR_DETAIL); absent: `log`. */
  errorDetail?: ErrorDetail;
}

/**
 * 8 MiB of body, framing included. Every byte read counts, and an OpenAI stream spends about 250 bytes of SSE on a
 * token, so this holds a streamed answer of ~32,000 tokens, the longest output of most models (the cap counted text
 * alone before, when 1 MiB was plenty). More is a runaway or hostile upstream, or an agent that needs a larger cap.
 */
export const DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024;

/** The agent's error for a reply over the cap; its words are the README's. */
export function replyTooLarge(agentId: string, maxBytes: number): AgentError {
  return new AgentError(`Agent ${agentId}: the agent's reply exceeded ${maxBytes} bytes.`, 'upstream_reply_too_large');
}

/**
 * At most `maxBytes` of an error body, then the rest is abandoned (the connection with it). The reader is the call's
 * while it reads, so an abort (the caller's, AGENT_TIMEOUT_MS) ends a body that trickles in, as it ends a reply.
 */
async function readHead(call: UpstreamCall, maxBytes: number): Promise<string> {
  const { body } = call.response;
  if (!body) return '';
  const reader = (call.reader = body.getReader());
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      text += decoder.decode(value.subarray(0, maxBytes - bytes), { stream: true });
      bytes += value.byteLength;
    }
    return text;
  } catch {
    return text;
  } finally {
    call.reader = undefined;
    void reader.cancel().catch(() => undefined);
  }
}

export interface UpstreamResponse {
  response: Response;
  /**
   * The response body as text chunks, every byte counted: past maxReplyBytes the read is abandoned and fails
   * with the over-the-cap error. Read failures (timeout, cancel, reset) become AgentErrors.
   */
  chunks(): AsyncIterable<string>;
  /**
   * Ends the read now, the connection with it, and returns `error` to throw: the reply broke another bound, or is
   * not of the kind the format reads.
   */
  abandon(error: AgentError): AgentError;
}

/**
 * POSTs JSON and returns the response once its status is 2xx. The timeout (AGENT_TIMEOUT_MS) is a silence: the
 * longest the upstream may go without sending a byte, until its headers and then between chunks, so an agent that
 * streams for minutes is not cut off while one that hangs is; the turn's own bound (AGENT_TURN_TIMEOUT_MS, through
 * `signal`) ends even a trickle. `traceHeaders` (W3C trace context of the call) go along so the agent's work joins
 * the caller's trace.
 */
export function postUpstream(
  target: UpstreamTarget, body: unknown, signal: AbortSignal, traceHeaders?: Record<string, string>,
): Promise<UpstreamResponse> {
  return requestUpstream(target, JSON.stringify(body), signal, traceHeaders);
}

/** A GET of `target.url` (a document the agent publishes, such as an A2A agent card), read and bounded as a reply is. */
export function getUpstream(target: UpstreamTarget, signal: AbortSignal): Promise<UpstreamResponse> {
  return requestUpstream(target, undefined, signal);
}

async function requestUpstream(
  target: UpstreamTarget, body: string | undefined, signal: AbortSignal, traceHeaders?: Record<string, string>,
): Promise<UpstreamResponse> {
  const call = new UpstreamCall(target, signal);
  try {
    call.response = await fetch(target.url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: headersOf(target, body !== undefined, traceHeaders),
      body,
      signal: call.abortSignal,
      // Redirects are not followed: a POST that moves is a misconfigured URL, and following one makes fetch
      // copy the request first (~25 µs a call).
      redirect: 'error',
    });
  } catch (error) {
    call.release();
    throw call.fail(error);
  }
  if (!call.response.ok) {
    const text = await readHead(call, ERROR_BODY_BYTES + (target.apiKey?.length ?? 0));
    call.release();
    throw httpError(target, call.response.status, text);
  }
  return call;
}

const ONCE = { once: true } as const;
const ACCEPT = 'text/event-stream, application/json';
/** The headers every request to a target carries, made once per target: a POST's and a GET's. */
const targetHeaders = new WeakMap<UpstreamTarget, { post: Record<string, string>; get: Record<string, string> }>();

function headersOf(target: UpstreamTarget, post: boolean, traceHeaders: Record<string, string> | undefined): Record<string, string> {
  let made = targetHeaders.get(target);
  if (!made) {
    made = {
      post: Object.freeze({ 'content-type': 'application/json', accept: ACCEPT, ...target.headers }),
      get: Object.freeze({ accept: ACCEPT, ...target.headers }),
    };
    targetHeaders.set(target, made);
  }
  const base = post ? made.post : made.get;
  // The target's own headers win over the trace context, as they always have.
  return traceHeaders ? { ...(post ? { 'content-type': 'application/json' } : {}), accept: ACCEPT, ...traceHeaders, ...target.headers } : base;
}

/**
 * One upstream request and the read of its reply: one controller and one timer, cheaper on the hot path than
 * AbortSignal.any + AbortSignal.timeout, and no closures: it listens to the caller's signal as an EventListener.
 * Aborting also cancels the reply's reader: fetch follows its signal through a Request it holds only weakly, and
 * after a full garbage collection the abort no longer reaches it (nodejs/node#55428), so the read would go on to
 * the reply's end with the connection open (test/agent/upstream/request-abort.test.ts).
 */
class UpstreamCall implements UpstreamResponse {
  response!: Response;
  /** The reply's reader while it is read (readText, readHead). */
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly #target: UpstreamTarget;
  readonly #signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #timer: ReturnType<typeof setTimeout>;
  #timedOut = false;

  constructor(target: UpstreamTarget, signal: AbortSignal) {
    this.#target = target;
    this.#signal = signal;
    this.#timer = setTimeout(timeOut, target.timeoutMs, this);
    if (signal.aborted) this.#controller.abort(signal.reason);
    else signal.addEventListener('abort', this, ONCE);
  }

  get abortSignal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True once the request was aborted: a read that then ends did not reach the reply's end. */
  get aborted(): boolean {
    return this.#controller.signal.aborted;
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.#abort(this.#signal.reason);
  }

  /** AGENT_TIMEOUT_MS of silence. */
  timeOut(): void {
    this.#timedOut = true;
    this.#abort(TIMED_OUT);
  }

  #abort(reason: unknown): void {
    this.#controller.abort(reason);
    // Cancelling the body closes the connection whether or not fetch still hears its signal: through its reader
    // while it is read, or the body itself when nobody reads it (an adapter that threw at the reply's head).
    const body = this.response?.body;
    if (this.reader) this.reader.cancel(reason).catch(ignore);
    else if (body && !body.locked) body.cancel(reason).catch(ignore);
  }

  /** More bytes came: the silence starts again. */
  heard(): void {
    this.#timer.refresh();
  }

  release(): void {
    clearTimeout(this.#timer);
    this.#signal.removeEventListener('abort', this);
  }

  fail(error: unknown): Error {
    return failure(this.#target, error, this.#timedOut, this.#signal);
  }

  abandon(error: AgentError): AgentError {
    this.#abort(ABANDONED);
    this.release();
    return error;
  }

  tooLarge(): AgentError {
    overCap.note(`agent ${this.#target.agentId}`);
    return this.abandon(replyTooLarge(this.#target.agentId, this.#target.maxReplyBytes));
  }

  chunks(): AsyncIterable<string> {
    return readText(this, this.#target.maxReplyBytes);
  }
}

const timeOut = (call: UpstreamCall) => call.timeOut();

const ABANDONED = new Error('The reply broke a bound; its read was abandoned.');
/** What readText throws for a read that ended because the request was aborted; fail() says which abort it was. */
const CUT_OFF = new Error('The read was cut off by an abort.');
const ignore = () => undefined;
const overCap = createCountedWarning((agent, count) =>
  `cut off ${count} upstream repl${count === 1 ? 'y' : 'ies'} over AGENT_MAX_REPLY_BYTES (latest: ${agent})`);

const TIMED_OUT = new Error('The upstream did not answer in time.');

function failure(target: UpstreamTarget, error: unknown, timedOut: boolean, signal: AbortSignal): Error {
  if (error instanceof AgentError) return error;
  if (signal.aborted) return callCancelled(target.agentId);
  if (timedOut) return new AgentError(`Agent ${target.agentId} sent nothing for ${target.timeoutMs} ms (AGENT_TIMEOUT_MS).`, 'upstream_timeout');
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.message === 'unexpected redirect') {
    return new AgentError(`Agent ${target.agentId}: the upstream answered with a redirect; configure the URL it redirects to.`, 'upstream_redirect');
  }
  const code = cause?.code ?? (error as { code?: string }).code;
  return new AgentError(`Agent ${target.agentId}: the connection to the upstream failed${code ? ` (${code})` : ''}.`,
    `upstream_connection_failed${code ? `:${code}` : ''}`);
}

async function* readText(call: UpstreamCall, maxBytes: number): AsyncIterable<string> {
  const reader = (call.reader = call.response.body!.getReader());
  const decoder = new TextDecoder();
  let ended = false;
  let failed = false;
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      // A reader cancelled by an abort reads as done: that is the abort, not the reply's end.
      if (call.aborted) throw CUT_OFF;
      if (done) {
        ended = true;
        const rest = decoder.decode();
        if (rest) yield rest;
        return;
      }
      bytes += value.byteLength;
      if (bytes > maxBytes) throw call.tooLarge();
      call.heard();
      yield decoder.decode(value, { stream: true });
    }
  } catch (error) {
    failed = true;
    throw call.fail(error);
  } finally {
    call.release();
    call.reader = undefined;
    if (failed) void reader.cancel().catch(() => undefined);
    else if (!ended) void drain(reader);
  }
}

const DRAIN_MS = 1_000;
const DRAIN_BYTES = 64 * 1024;

/**
 * The consumer has what it needs (an OpenAI stream's [DONE]) but the body has not ended: it is read to its end
 * in the background, so the connection goes back to the pool instead of being torn down and opened again on
 * the next call. An upstream that keeps talking is cut off.
 */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  const cutOff = () => void reader.cancel().catch(() => undefined);
  const timer = setTimeout(cutOff, DRAIN_MS);
  try {
    let bytes = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      bytes += value.byteLength;
      if (bytes > DRAIN_BYTES) return cutOff();
    }
  } catch {
    // The connection failed after the reply was complete: nothing to report.
  } finally {
    clearTimeout(timer);
  }
}
