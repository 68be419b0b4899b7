/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) as MCP carries it: in the HTTP headers, or per
 * message in `params._meta` under the same names (OpenTelemetry MCP semantic conventions, "Context
 * propagation"); a message's own context wins over its HTTP request's.
 */

export const H_TRACEPARENT = 'traceparent';
export const H_TRACESTATE = 'tracestate';
export const META_TRACEPARENT = 'traceparent';
export const META_TRACESTATE = 'tracestate';

/** version-traceid-parentid-flags, lower-case hex; an all-zero trace or parent id is invalid (§3.2.2.3). */
const TRACEPARENT = /^[0-9a-f]{2}-(?!0{32})([0-9a-f]{32})-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
/** A tracestate is at most 32 list members of at most 256 characters each (§3.3.1.1): 512 is plenty in practice. */
const MAX_TRACESTATE = 512;

export interface TraceContext {
  traceparent: string;
  tracestate?: string;
}

/** The trace id of a valid `traceparent`, or undefined (anything else is ignored, never echoed). */
export function traceIdOf(traceparent: string): string | undefined {
  return TRACEPARENT.exec(traceparent)?.[1];
}

/** A valid trace context from raw values; an invalid `traceparent` means none, an oversize `tracestate` is dropped. */
export function readTraceContext(traceparent: unknown, tracestate: unknown): TraceContext | undefined {
  if (typeof traceparent !== 'string' || traceIdOf(traceparent) === undefined) return undefined;
  const state = typeof tracestate === 'string' && tracestate.length <= MAX_TRACESTATE && /^[\x20-\x7e]*$/.test(tracestate) ? tracestate : undefined;
  return state ? { traceparent, tracestate: state } : { traceparent };
}
