/**
 * One HTTP request to an upstream agent: configured credentials only (the client's token is never forwarded; the
 * headers that carry the key are the format's, upstream/index.ts), a timeout, the caller's AbortSignal, and a cap on the bytes read (AGENT_MAX_REPLY_BYTES) counted
 * here, once, on every byte of every body, whatever the adapter makes of them. Failures become AgentErrors that
 * name the agent and the status; an error body is read ERROR_BODY_BYTES deep and goes to the operator's log, not
 * the caller (error-text.ts). The request travels over node:http (transport.ts).
 */

import type { ClientRequest, IncomingMessage } from 'node:http';
import { createParser } from 'eventsource-parser';
import { H_USER_AGENT } from '../../protocol/headers.js';
import { createCountedWarning } from '../../warn.js';
import { AgentError, callCancelled } from '../types.js';
import { ERROR_BODY_BYTES, httpError, type ErrorDetail } from './error-text.js';
import { originOf, ReplyHeaders, send } from './transport.js';
import { PushRead, type OnEvent } from './push-read.js';

export interface UpstreamTarget {
  agentId: string;
  url: string;
  /**
   * The origin the agent was configured with (its URL's): every request goes there and nowhere else, whatever URL a
   * format derives or a document the upstream serves names (an A2A card's interface). Absent: `url` is the only one.
   */
  origin?: string;
  /** The key, for redacting it from error text; it travels in `headers`. */
  apiKey?: string;
  /** Headers every request carries: the format's auth headers (upstream/index.ts) and any the agent configures. */
  headers?: Record<string, string>;
  timeoutMs: number;
  /** The most bytes of body an agent may send (AGENT_MAX_REPLY_BYTES), counted as read. */
  maxReplyBytes: number;
  /** The deepest its JSON may nest (MCP_MAX_JSON_DEPTH; json.ts); absent: that variable's default. */
  maxJsonDepth?: number;
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
 * At most `maxBytes` of an error body, then the rest is abandoned (the connection with it). The read is the call's
 * while it goes on, so an abort (the caller's, AGENT_TIMEOUT_MS) ends a body that trickles in, as it ends a reply.
 */
async function readHead(call: UpstreamCall, maxBytes: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    for (let chunk = await call.next(); chunk !== null; chunk = await call.next()) {
      text += decoder.decode(chunk.subarray(0, maxBytes - bytes), { stream: true });
      bytes += chunk.byteLength;
      if (bytes >= maxBytes) return text;
    }
    return text + decoder.decode();
  } catch {
    return text;
  } finally {
    call.close();
  }
}

/** What an adapter reads of a reply's head. */
export interface ReplyHead {
  status: number;
  headers: Pick<ReplyHeaders, 'get' | 'has'>;
}

export interface UpstreamResponse {
  response: ReplyHead;
  /**
   * The response body as text chunks, every byte counted: past maxReplyBytes the read is abandoned and fails
   * with the over-the-cap error. Read failures (timeout, cancel, reset) become AgentErrors.
   */
  chunks(): AsyncIterable<string>;
  /** The body's SSE `data` payloads, in order, read and counted as chunks() reads them. */
  events(): AsyncIterable<string>;
  /**
   * The same payloads pushed to `onEvent` as they arrive, synchronously, with no promise per event (push-read.ts):
   * settles once, at the reply's end, once `onEvent` returns true (it has what it needs; the rest is drained), or
   * with the read's failure, which is what `onEvent` threw, as it is, or the call's own failure as events() tells it.
   */
  readEvents(onEvent: OnEvent): Promise<void>;
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
  const elsewhere = otherOrigin(target);
  if (elsewhere) throw elsewhere;
  const call = new UpstreamCall(target, signal);
  try {
    await call.send(body === undefined ? 'GET' : 'POST', headersOf(target, body !== undefined, traceHeaders), body);
  } catch (error) {
    call.release();
    throw call.fail(error);
  }
  const { status } = call.response;
  if (REDIRECTS.has(status)) {
    // Redirects are not followed: a POST that moves is a misconfigured URL.
    call.close();
    call.release();
    throw new AgentError(`Agent ${target.agentId}: the upstream answered with a redirect; configure the URL it redirects to.`, 'upstream_redirect');
  }
  if (status < 200 || status > 299) {
    const text = await readHead(call, ERROR_BODY_BYTES + (target.apiKey?.length ?? 0));
    call.release();
    throw httpError(target, status, text);
  }
  return call;
}

/**
 * Credentials go only where they were configured (docs/security.md "Credentials"): a request to another origin than
 * the agent's, named by a card or any reply, is a redirect by other means and is refused before anything is sent, as
 * a redirect is. Another scheme is another origin, so an https agent is never called over http.
 */
function otherOrigin(target: UpstreamTarget): AgentError | undefined {
  if (target.origin === undefined) return undefined;
  let origin: string;
  try {
    origin = originOf(target.url);
  } catch {
    origin = 'an unparsable URL';
  }
  if (origin === target.origin) return undefined;
  elsewhere.note(`agent ${target.agentId}: ${origin}, configured ${target.origin}`);
  return new AgentError(`Agent ${target.agentId}: the upstream named another origin to send its requests to; agent-mcp sends an agent's requests `
    + 'and key only to the origin configured for it.', 'upstream_other_origin');
}

const elsewhere = createCountedWarning((detail, count) =>
  `refused ${count} request${count === 1 ? '' : 's'} to an origin other than the agent's configured one (latest: ${detail})`);

/** The statuses fetch follows (and with `redirect: 'error'` refused): the upstream names another URL. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const ONCE = { once: true } as const;
const ACCEPT = 'text/event-stream, application/json';
/** The headers every request to a target carries, made once per target: a POST's and a GET's. */
const targetHeaders = new WeakMap<UpstreamTarget, { post: Record<string, string>; get: Record<string, string> }>();

function headersOf(target: UpstreamTarget, post: boolean, traceHeaders: Record<string, string> | undefined): Record<string, string> {
  let made = targetHeaders.get(target);
  if (!made) {
    made = {
      post: Object.freeze({ [H_USER_AGENT]: 'agent-mcp', 'content-type': 'application/json', accept: ACCEPT, ...target.headers }),
      get: Object.freeze({ [H_USER_AGENT]: 'agent-mcp', accept: ACCEPT, ...target.headers }),
    };
    targetHeaders.set(target, made);
  }
  const base = post ? made.post : made.get;
  // The target's own headers win over the trace context, as they always have.
  return traceHeaders ? { ...base, ...traceHeaders, ...target.headers } : base;
}

/**
 * One upstream request and the read of its reply: one timer, and one function listening to the caller's signal.
 * The reply's bytes are counted as they arrive, against the cap, and queued for the reader; an abort (the caller's
 * signal, AGENT_TIMEOUT_MS of silence, a broken bound) destroys the request, which closes its connection, and the
 * reader then fails with it.
 */
class UpstreamCall implements UpstreamResponse {
  response!: ReplyHead;
  readonly #target: UpstreamTarget;
  readonly #signal: AbortSignal;
  #timer: ReturnType<typeof setTimeout>;
  /** When the upstream last sent something: the silence timer, when it fires, waits out the rest (no refresh per chunk). */
  #heardAt: number;
  #request: ClientRequest | undefined;
  #message: IncomingMessage | undefined;
  /** Chunks arrived and not yet read; the reply is paused while the reader is this far behind. */
  readonly #queue: Buffer[] = [];
  #bytes = 0;
  #ended = false;
  /** Why the read cannot go on: CUT_OFF after an abort, or the reply's own failure. */
  #failed: unknown;
  /** The reader waiting for a chunk, the end or a failure. */
  #wake: (() => void) | undefined;
  /** Bytes left to read before a reply nobody reads any more is cut off (drain); undefined while it is read. */
  #drainBudget: number | undefined;
  /** The push read (readEvents), when the reply is read that way: chunks go to it as they arrive, not to the queue. */
  #push: PushRead | undefined;
  #drainTimer: ReturnType<typeof setTimeout> | undefined;
  #aborted = false;
  #timedOut = false;
  /**
   * A function, not the call itself as an EventListener object: on Node 22 and 24 an object listener outlives its
   * removal until a full collection (measured; why, inside Node's EventTarget, not traced), so every call, with its
   * request, reply and headers, was promoted to the old generation; the measurements are in
   * docs/performance.md "Issue 22 round 6: what a proxy's hop costs, where the tail goes, and a listener that promoted every call".
   * Made with the call and capturing nothing but it, this one measured clean; a Cancellation's, which also captures
   * its signal, did not when stored before it was added (cancellation.ts). test/agent/upstream/young-garbage.test.ts
   * holds both.
   */
  readonly #onAbort = () => this.#abort();

  constructor(target: UpstreamTarget, signal: AbortSignal) {
    this.#target = target;
    this.#signal = signal;
    this.#heardAt = Date.now();
    this.#timer = setTimeout(timeOut, target.timeoutMs, this);
    if (signal.aborted) this.#aborted = true;
    else signal.addEventListener('abort', this.#onAbort, ONCE);
  }

  /** Sends the request; resolves once the reply's head is in, with `response` set. */
  send(method: 'GET' | 'POST', headers: Record<string, string>, body: string | undefined): Promise<void> {
    if (this.#aborted) return Promise.reject(CUT_OFF);
    const request = (this.#request = send(this.#target.url, method, headers, body));
    // The request may fail more than once (a reset after the reply began): every failure is answered here.
    request.on('error', ignore);
    return new Promise((resolve, reject) => {
      request.once('error', reject);
      // The reply is listened to as it arrives, in the same turn: a failure of it never goes unheard.
      request.once('response', (message: IncomingMessage) => {
        this.#listen(message);
        resolve();
      });
    });
  }

  #listen(message: IncomingMessage): void {
    this.#message = message;
    this.heard();
    this.response = { status: message.statusCode ?? 0, headers: new ReplyHeaders(message) };
    message.on('data', (chunk: Buffer) => this.#arrived(chunk));
    message.on('end', () => this.#settle(undefined));
    message.on('error', (error) => this.#settle(error));
    message.on('close', () => this.#settle(PREMATURE));
  }

  /** AGENT_TIMEOUT_MS since the timer was set: a silence that long ends the call, a shorter one re-arms it for the rest. */
  timeOut(): void {
    const quiet = Date.now() - this.#heardAt;
    if (quiet < this.#target.timeoutMs) {
      this.#timer = setTimeout(timeOut, this.#target.timeoutMs - quiet, this);
      return;
    }
    this.#timedOut = true;
    this.#abort();
  }

  #abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#request?.destroy();
    this.#settle(CUT_OFF);
  }

  #arrived(chunk: Buffer): void {
    // After an abort nothing more is read: a chunk already on its way is dropped, not counted twice against the cap.
    if (this.#aborted) return;
    this.#bytes += chunk.byteLength;
    if (this.#drainBudget !== undefined) {
      this.#drainBudget -= chunk.byteLength;
      if (this.#drainBudget < 0) this.close();
      return;
    }
    if (this.#bytes > this.#target.maxReplyBytes) {
      this.tooLarge();
    } else {
      this.heard();
      if (this.#push) return this.#push.chunk(chunk);
      this.#queue.push(chunk);
      if (this.#queue.length >= QUEUED_CHUNKS) this.#message!.pause();
    }
    this.#wakeReader();
  }

  /** The reply ended (`reason` undefined) or failed; the first word stands. */
  #settle(reason: unknown): void {
    if (reason === undefined) this.#ended = true;
    else if (!this.#ended) this.#failed ??= reason;
    if (this.#drainBudget !== undefined) clearTimeout(this.#drainTimer);
    // Only the reply's own end ends the push read: an abort after it (a handler's abandon while it reads what had
    // queued) leaves the read to the handler's error.
    if (this.#push) {
      if (reason === undefined) this.#push.end();
      else if (this.#failed !== undefined) this.#push.fail(this.#failed);
    }
    this.#wakeReader();
  }

  #wakeReader(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** The reply's next chunk, or null at its end; throws what ended it otherwise. */
  async next(): Promise<Buffer | null> {
    for (;;) {
      const chunk = this.#queue.shift();
      if (chunk !== undefined) {
        if (this.#queue.length === 0 && this.#message!.isPaused()) this.#message!.resume();
        return chunk;
      }
      if (this.#failed !== undefined) throw this.#failed;
      if (this.#ended) return null;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** Ends the reply and its connection now. */
  close(): void {
    this.#aborted = true;
    this.#request?.destroy();
  }

  /**
   * The consumer has what it needs (an OpenAI stream's [DONE]) but the reply has not ended: it is read to its end
   * in the background, so the connection goes back to the pool instead of being torn down and opened again on
   * the next call. An upstream that keeps talking (DRAIN_BYTES, DRAIN_MS) is cut off.
   */
  drain(): void {
    if (this.#ended || this.#failed !== undefined) return;
    this.#queue.length = 0;
    this.#drainBudget = DRAIN_BYTES;
    this.#drainTimer = setTimeout(closeCall, DRAIN_MS, this);
    this.#message!.resume();
  }

  /** More bytes came: the silence starts again. */
  heard(): void {
    this.#heardAt = Date.now();
  }

  release(): void {
    clearTimeout(this.#timer);
    this.#signal.removeEventListener('abort', this.#onAbort);
  }

  fail(error: unknown): Error {
    return failure(this.#target, error, this.#timedOut, this.#signal);
  }

  abandon(error: AgentError): AgentError {
    this.#abort();
    this.release();
    return error;
  }

  /** The reply went past AGENT_MAX_REPLY_BYTES: the read fails with that, and the request ends. */
  tooLarge(): AgentError {
    overCap.note(`agent ${this.#target.agentId}`);
    const error = replyTooLarge(this.#target.agentId, this.#target.maxReplyBytes);
    this.#failed ??= error;
    return this.abandon(error);
  }

  chunks(): AsyncIterable<string> {
    return readText(this, false);
  }

  events(): AsyncIterable<string> {
    return readText(this, true);
  }

  readEvents(onEvent: OnEvent): Promise<void> {
    const push = (this.#push = new PushRead(this, onEvent));
    // What arrived before the read began, then what ended it, if anything did.
    for (const chunk of this.#queue.splice(0)) push.chunk(chunk);
    if (this.#failed !== undefined) push.fail(this.#failed);
    else if (this.#ended) push.end();
    else if (this.#message!.isPaused()) this.#message!.resume();
    return push.done;
  }
}

/** Chunks queued before the reply is paused until the reader has taken them: a reader that keeps up holds one. */
const QUEUED_CHUNKS = 16;
const closeCall = (call: UpstreamCall) => call.close();
const PREMATURE = new Error('The reply ended before it was complete.');

const timeOut = (call: UpstreamCall) => call.timeOut();

/** What the read throws once the request was aborted; fail() says which abort it was. */
const CUT_OFF = new Error('The read was cut off by an abort.');
const ignore = () => undefined;
const overCap = createCountedWarning((agent, count) =>
  `cut off ${count} upstream repl${count === 1 ? 'y' : 'ies'} over AGENT_MAX_REPLY_BYTES (latest: ${agent})`);

function failure(target: UpstreamTarget, error: unknown, timedOut: boolean, signal: AbortSignal): Error {
  if (error instanceof AgentError) return error;
  if (signal.aborted) return callCancelled(target.agentId);
  if (timedOut) return new AgentError(`Agent ${target.agentId} sent nothing for ${target.timeoutMs} ms (AGENT_TIMEOUT_MS).`, 'upstream_timeout');
  const code = (error as { code?: string }).code;
  return new AgentError(`Agent ${target.agentId}: the connection to the upstream failed${code ? ` (${code})` : ''}.`,
    `upstream_connection_failed${code ? `:${code}` : ''}`);
}

/**
 * The reply as text, or as its SSE events' `data` when `events`: parsed in the same generator that reads the text, so a
 * streamed chunk passes one generator here rather than two (issue 48). eventsource-parser (6 KB) is in the start file:
 * loaded through import() with the first streamed reply, it cost that reply 2–3 ms of the module loader. The MCP SDK
 * client of mounts has its own copy in its chunk (scripts/dependency-copies.mjs), or esbuild would make the package a
 * chunk that every cold start loads.
 */
async function* readText(call: UpstreamCall, events: boolean): AsyncIterable<string> {
  const decoder = new TextDecoder();
  const ready: string[] = [];
  const parser = events ? createParser({ onEvent: (event) => ready.push(event.data) }) : undefined;
  let ended = false;
  let failed = false;
  try {
    for (;;) {
      const chunk = await call.next();
      if (chunk === null) ended = true;
      const text = chunk === null ? decoder.decode() : decoder.decode(chunk, { stream: true });
      if (!parser) {
        if (text || !ended) yield text;
      } else {
        parser.feed(text);
        // One chunk can hold thousands of small events: taken as a batch, not shifted off one by one.
        for (let i = 0; i < ready.length; i++) yield ready[i]!;
        ready.length = 0;
      }
      if (ended) return;
    }
  } catch (error) {
    failed = true;
    throw call.fail(error);
  } finally {
    call.release();
    if (failed) call.close();
    else if (!ended) call.drain();
  }
}

const DRAIN_MS = 1_000;
const DRAIN_BYTES = 64 * 1024;
