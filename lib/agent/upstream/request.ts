/**
 * One HTTP request to an upstream agent: configured credentials only (the client's token is never
 * forwarded), a timeout, the caller's AbortSignal, and failures turned into AgentErrors that name the
 * agent, the status and a short cause — never the URL's query, the key or the upstream's full body.
 */

import { AgentError } from '../types.js';

export interface UpstreamTarget {
  agentId: string;
  url: string;
  apiKey?: string;
  timeoutMs: number;
}

const CAUSE_CHARS = 160;

function shortCause(body: string): string {
  let text = body;
  try {
    const json = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const candidate = typeof json.error === 'string' ? json.error : json.error?.message ?? json.message;
    if (typeof candidate === 'string') text = candidate;
  } catch { /* not JSON: use the text */ }
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > CAUSE_CHARS ? `${flat.slice(0, CAUSE_CHARS)}…` : flat;
}

export interface UpstreamResponse {
  response: Response;
  /** The response body as text chunks; read failures (timeout, cancel, reset) become AgentErrors. */
  chunks(): AsyncIterable<string>;
}

/** POSTs JSON and returns the response once its status is 2xx; the timeout covers the whole exchange. */
export async function postUpstream(target: UpstreamTarget, body: unknown, signal: AbortSignal): Promise<UpstreamResponse> {
  // One controller and one timer per call: cheaper on the hot path than AbortSignal.any + AbortSignal.timeout.
  const combined = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    combined.abort(TIMED_OUT);
  }, target.timeoutMs);
  const onAbort = () => combined.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const release = () => {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  };
  const fail = (error: unknown) => failure(target, error, timedOut, signal);
  let response: Response;
  try {
    response = await fetch(target.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream, application/json',
        ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal: combined.signal,
      // Redirects are not followed: a POST that moves is a misconfigured URL, and following one makes fetch
      // copy the request first (~25 µs a call).
      redirect: 'error',
    });
  } catch (error) {
    release();
    throw fail(error);
  }
  if (!response.ok) {
    const cause = shortCause(await response.text().catch(() => ''));
    release();
    throw new AgentError(`Agent ${target.agentId} failed: the upstream answered HTTP ${response.status}${cause ? ` (${cause})` : ''}.`);
  }
  return { response, chunks: () => readText(response, fail, release) };
}

const TIMED_OUT = new Error('The upstream did not answer in time.');

function failure(target: UpstreamTarget, error: unknown, timedOut: boolean, signal: AbortSignal): Error {
  if (error instanceof AgentError) return error;
  if (signal.aborted) return new AgentError(`Agent ${target.agentId}: the call was cancelled.`);
  if (timedOut) return new AgentError(`Agent ${target.agentId} did not answer within ${target.timeoutMs} ms.`);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.message === 'unexpected redirect') {
    return new AgentError(`Agent ${target.agentId}: the upstream answered with a redirect; configure the URL it redirects to.`);
  }
  const code = cause?.code ?? (error as { code?: string }).code;
  return new AgentError(`Agent ${target.agentId}: the connection to the upstream failed${code ? ` (${code})` : ''}.`);
}

async function* readText(response: Response, fail: (error: unknown) => Error, release: () => void): AsyncIterable<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let ended = false;
  let failed = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        const rest = decoder.decode();
        if (rest) yield rest;
        return;
      }
      yield decoder.decode(value, { stream: true });
    }
  } catch (error) {
    failed = true;
    throw fail(error);
  } finally {
    release();
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
