/**
 * HTTP header names of Streamable HTTP and the checks the modern wire makes between headers and body
 * (2026-07-28 transports/streamable-http §Request Headers, SEP-2243).
 */

export const H_PROTOCOL_VERSION = 'mcp-protocol-version';
export const H_METHOD = 'mcp-method';
export const H_NAME = 'mcp-name';
export const H_SESSION_ID = 'mcp-session-id';
export const H_LAST_EVENT_ID = 'last-event-id';
export const H_PARAM_PREFIX = 'mcp-param-';
/** Read only to tell which kind of client calls, for the span (lib/observe/vercel-rpc.ts). */
export const H_USER_AGENT = 'user-agent';

/** The media type of a Streamable HTTP reply that streams (transports §Sending Messages). */
export const EVENT_STREAM = 'text/event-stream';

/** Back-off headers of a 429 or 503 (RFC 9110 §10.2.3; draft-ietf-httpapi-ratelimit-headers-09 §3, §4). */
export const H_RETRY_AFTER = 'retry-after';
export const H_RATELIMIT = 'ratelimit';
export const H_RATELIMIT_POLICY = 'ratelimit-policy';

/**
 * Vercel's Protection Bypass for Automation header: a client reaching a protected preview sends it on every
 * request, so browser clients' preflights must be told it is allowed.
 * https://vercel.com/docs/deployment-protection/methods-to-bypass-deployment-protection/protection-bypass-automation
 */
export const H_VERCEL_PROTECTION_BYPASS = 'x-vercel-protection-bypass';

/** Methods whose target travels in `Mcp-Name`, and the params field it mirrors. */
export const NAME_FIELD_BY_METHOD: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  // SEP-2663 §Streamable HTTP: Routing Headers.
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

const SENTINEL_OPEN = '=?base64?';
const SENTINEL_CLOSE = '?=';
/** Canonical padded base64; the SEP-2243 test table rejects missing padding and foreign characters. */
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Header values that are not plain visible ASCII travel as `=?base64?<utf-8 bytes>?=`; servers decode before
 * comparing. A value without both the prefix and the suffix is literal. Returns undefined when a sentinel's
 * payload is not strict base64 or not UTF-8, which callers treat as a mismatch.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  if (!raw.startsWith(SENTINEL_OPEN) || !raw.endsWith(SENTINEL_CLOSE)) return raw;
  if (raw.length < SENTINEL_OPEN.length + SENTINEL_CLOSE.length) return raw;
  const payload = raw.slice(SENTINEL_OPEN.length, -SENTINEL_CLOSE.length);
  if (!STRICT_BASE64.test(payload)) return undefined;
  try {
    const bytes = Uint8Array.from(atob(payload), (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** A value fits in a header verbatim when it is visible ASCII or inner spaces (no leading/trailing space). */
export function isPlainHeaderValue(value: string): boolean {
  return /^[\x21-\x7E]([\x20-\x7E]*[\x21-\x7E])?$/.test(value);
}

/** How a client writes a value into a header (used by our smoke client and tests). */
export function encodeHeaderValue(value: string): string {
  if (isPlainHeaderValue(value)) return value;
  const bytes = new TextEncoder().encode(value);
  return `=?base64?${btoa(String.fromCharCode(...bytes))}?=`;
}
