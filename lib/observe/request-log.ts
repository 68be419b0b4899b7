/**
 * One JSON line per request to the MCP endpoint, on stdout (docs/observability.md "Observability"): what was called, by
 * what kind of caller, how it ended (and why an upstream agent failed, as a code) and how long it and its upstream took. Only the fields of an Observation, which
 * holds no token, caller id, message text or URL. On by default; `MCP_LOG=off` turns it off.
 */

import { traceIdOf } from '../protocol/trace-context.js';
import type { Observation } from './observation.js';

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['on', 'off', 'debug'] as const;
/** `on` (the default): the request log; `debug`: that and every setting at start-up; `off`: neither. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** MCP_LOG; anything but on, off or debug is a configuration error. */
export function readLogLevel(env: Env = process.env): LogLevel {
  const value = env.MCP_LOG?.trim().toLowerCase() || 'on';
  if (!(LOG_LEVELS as readonly string[]).includes(value)) throw new TypeError(`MCP_LOG must be on, off or debug, got "${env.MCP_LOG}".`);
  return value as LogLevel;
}

const round = (ms: number) => Math.round(ms * 10) / 10;
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * `Date.prototype.toISOString`, written out: V8's first toISOString of a process costs ~0.3 ms, and the first
 * line is written on the cold start's first request (bench/cold-start.mjs).
 */
export function isoTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:` +
    `${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}Z`;
}

/** The line for a finished request; fields without a value are left out. */
export function formatRequestLog(observation: Observation, status: number): string {
  return JSON.stringify({
    time: isoTime(observation.startedAt),
    msg: 'mcp request',
    method: observation.method,
    tool: observation.tool,
    batch: observation.batch,
    caller: observation.caller,
    era: observation.era,
    protocol: observation.protocolVersion,
    status,
    duration_ms: round(observation.elapsedMs()),
    upstream_ms: observation.upstreamMs === undefined ? undefined : round(observation.upstreamMs),
    error: observation.errorType(status),
    cause: observation.cause,
    trace_id: observation.trace && traceIdOf(observation.trace.traceparent),
  });
}

export type Report = (observation: Observation, status: number) => void;

/** Ends the span and writes the line (when `log`) once the call is done: after the stream, when the reply streamed. */
export function createReport(log: boolean): Report {
  return (observation, status) => observation.whenDone(() => {
    observation.endSpan(status);
    if (log) console.log(formatRequestLog(observation, status));
  });
}
