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
  const timeout = AbortSignal.timeout(target.timeoutMs);
  const combined = AbortSignal.any([signal, timeout]);
  const fail = (error: unknown) => failure(target, error, timeout, signal);
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
      signal: combined,
    });
  } catch (error) {
    throw fail(error);
  }
  if (!response.ok) {
    const cause = shortCause(await response.text().catch(() => ''));
    throw new AgentError(`Agent ${target.agentId} failed: the upstream answered HTTP ${response.status}${cause ? ` (${cause})` : ''}.`);
  }
  return { response, chunks: () => readText(response, fail) };
}

function failure(target: UpstreamTarget, error: unknown, timeout: AbortSignal, signal: AbortSignal): Error {
  if (error instanceof AgentError) return error;
  if (signal.aborted) return new AgentError(`Agent ${target.agentId}: the call was cancelled.`);
  if (timeout.aborted) return new AgentError(`Agent ${target.agentId} did not answer within ${target.timeoutMs} ms.`);
  const code = (error as { cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;
  return new AgentError(`Agent ${target.agentId}: the connection to the upstream failed${code ? ` (${code})` : ''}.`);
}

async function* readText(response: Response, fail: (error: unknown) => Error): AsyncIterable<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } catch (error) {
    throw fail(error);
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}
