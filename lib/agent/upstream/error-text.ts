/**
 * What an upstream's own error text becomes: an HTTP error body, or an `error` event inside a 2xx stream. That text
 * is written by whoever runs the upstream, and no block-list finds every secret it may hold (a key split in two or
 * base64-encoded, a host without a scheme, a private address, a password). So the caller gets a fixed sentence
 * naming the agent and the status, and the text goes to the operator's log: cut at ERROR_BODY_BYTES, the configured
 * key redacted, escaped onto one line. AGENT_ERROR_DETAIL=pass is the operator's choice for upstreams whose errors
 * are meant for callers: the sentence then carries a short cause, the key, bearer tokens and URLs redacted.
 */

import { AgentError } from '../types.js';

export const ERROR_DETAILS = ['log', 'pass'] as const;
/** AGENT_ERROR_DETAIL: `log` (the upstream's text to the log only, the default) or `pass` (a short cause to the caller too). */
export type ErrorDetail = (typeof ERROR_DETAILS)[number];

/** An error body is read this far, no further (plus the key's length, so a key at the edge is redacted whole). */
export const ERROR_BODY_BYTES = 4 * 1024;
const CAUSE_CHARS = 160;
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)]*/gi;
const BEARER_IN_TEXT = /\bBearer\s+[^\s"',]+/gi;

export interface ErrorSource {
  agentId: string;
  apiKey?: string;
  /** Absent: `log`. */
  errorDetail?: ErrorDetail;
}

/** The caller's error for an upstream that answered a non-2xx `status` with `body` (its first bytes). */
export function httpError(source: ErrorSource, status: number, body: string): AgentError {
  logText(source, `answered HTTP ${status}`, body);
  return new AgentError(`Agent ${source.agentId} failed: the upstream answered HTTP ${status}${passedCause(source, body)}.`, `upstream_http_${status}`);
}

/** The caller's error for an `error` event inside a stream; `data` is the event's payload. */
export function streamError(source: ErrorSource, data: string): AgentError {
  logText(source, 'reported an error in its reply', data);
  return new AgentError(`Agent ${source.agentId} reported an error in its reply${passedCause(source, data)}.`, 'upstream_error_event');
}

function logText(source: ErrorSource, what: string, text: string): void {
  const redacted = redactKey(text, source.apiKey);
  const cut = redacted.length > ERROR_BODY_BYTES ? `${redacted.slice(0, ERROR_BODY_BYTES)}…` : redacted;
  // JSON-quoted: an upstream's newlines cannot start a log line of their own.
  console.error(`[agent-mcp] agent ${source.agentId}: the upstream ${what}: ${JSON.stringify(cut)}`);
}

/** ` (cause)` when the operator passes upstream errors on, else nothing. */
function passedCause(source: ErrorSource, text: string): string {
  if (source.errorDetail !== 'pass') return '';
  const cause = sanitizeCause(messageOf(text), source.apiKey);
  return cause ? ` (${cause})` : '';
}

function redactKey(text: string, apiKey?: string): string {
  return apiKey ? text.split(apiKey).join('[redacted]') : text;
}

/**
 * Upstream text as a short cause: the configured key and bearer tokens become [redacted], any URL [url] (internal
 * hosts and signed links included), whitespace flattened, cut at CAUSE_CHARS.
 */
function sanitizeCause(text: string, apiKey?: string): string {
  const clean = redactKey(text, apiKey).replace(URL_IN_TEXT, '[url]').replace(BEARER_IN_TEXT, 'Bearer [redacted]');
  const flat = clean.replace(/\s+/g, ' ').trim();
  return flat.length > CAUSE_CHARS ? `${flat.slice(0, CAUSE_CHARS)}…` : flat;
}

/** The message of a JSON error (`{error: {message}}`, `{error}`, `{message}`), else the text itself. */
function messageOf(body: string): string {
  try {
    const json = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const candidate = typeof json.error === 'string' ? json.error : json.error?.message ?? json.message;
    if (typeof candidate === 'string') return candidate;
  } catch { /* not JSON (or cut at ERROR_BODY_BYTES): use the text */ }
  return body;
}
