/**
 * One JSON line per request to the MCP endpoint, on stdout (docs/observability.md "Observability"): what was called, by
 * what kind of caller, how it ended (and why an upstream agent failed, as a code), how long it and its upstream took and
 * the tokens its agents spent. Only the fields of an Observation, which
 * holds no token, caller id, message text or URL. On by default; `MCP_LOG=off` turns it off.
 */

import { traceIdOf } from '../protocol/trace-context.js';
import type { Observation } from './observation.js';
import type { UsageTotal } from '../usage/meter.js';

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

/** The last whole second written and its text up to the seconds: a busy instance writes many lines a second. */
let second = NaN;
let secondText = '';

/**
 * `Date.prototype.toISOString`, written out: V8's first toISOString of a process costs ~0.3 ms, and the first
 * line is written on the cold start's first request (bench/cold-start.mjs). The text up to the seconds is made
 * once per second.
 */
export function isoTime(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s !== second) {
    const d = new Date(s * 1000);
    secondText = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:` +
      `${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
    second = s;
  }
  return `${secondText}.${pad(ms - s * 1000, 3)}Z`;
}

/**
 * A string field: JSON.stringify only for what a client may have chosen (a method or tool name, cut to 64
 * characters by the observation), the rest is ours and needs no escaping.
 */
const text = JSON.stringify as (value: string) => string;

/**
 * The line for a finished request; fields without a value are left out. Written out field by field, in the
 * order and with the bytes JSON.stringify gives the same record (test/observe/request-log-format.test.ts): that
 * object and its walk were most of what the line cost a warm request (docs/performance.md).
 */
export function formatRequestLog(observation: Observation, status: number): string {
  const { method, tool, batch, era, protocolVersion, upstreamMs, cause, trace } = observation;
  let line = `{"time":"${isoTime(observation.startedAt)}","msg":"mcp request"`;
  if (method !== undefined) line += `,"method":${text(method)}`;
  if (tool !== undefined) line += `,"tool":${text(tool)}`;
  if (batch !== undefined) line += `,"batch":${batch}`;
  line += `,"caller":"${observation.caller}"`;
  if (era !== undefined) line += `,"era":"${era}"`;
  if (protocolVersion !== undefined) line += `,"protocol":${text(protocolVersion)}`;
  line += `,"status":${status},"duration_ms":${round(observation.elapsedMs())}`;
  if (upstreamMs !== undefined) line += `,"upstream_ms":${round(upstreamMs)}`;
  const error = observation.errorType(status);
  if (error !== undefined) line += `,"error":${text(error)}`;
  if (cause !== undefined) line += `,"cause":${text(cause)}`;
  const traceId = trace && traceIdOf(trace.traceparent);
  if (traceId !== undefined) line += `,"trace_id":"${traceId}"`;
  const usage = observation.usageTotal();
  if (usage !== undefined) line += usageFields(usage);
  return `${line}}`;
}

/**
 * What the call's agents spent (rule 17): with every request unknown the tokens say "unknown", never 0; with some,
 * the counts are of the others and `unknown_requests` says how many are missing from them.
 */
function usageFields(usage: UsageTotal): string {
  let fields = `,"model_requests":${usage.modelRequests}`;
  if (usage.unknownRequests === usage.modelRequests) return `${fields},"input_tokens":"unknown","output_tokens":"unknown"`;
  fields += `,"input_tokens":${usage.input},"output_tokens":${usage.output},"cached_input_tokens":${usage.cachedInput},"cache_write_tokens":${usage.cacheWrite}`;
  if (usage.unknownRequests > 0) fields += `,"unknown_requests":${usage.unknownRequests}`;
  if (usage.estimated) fields += ',"tokens_estimated":true';
  return fields;
}

export type Report = (observation: Observation, status: number) => void;

/**
 * Ends the span and writes the line (when `log`) once the call is done: after the stream, when the reply streamed.
 * One write per line, straight to stdout: each write is one log entry on Vercel, as console.log's are, without
 * console's formatting and per-call listener work.
 */
export function createReport(log: boolean): Report {
  return (observation, status) => observation.whenDone(() => {
    observation.endSpan(status);
    if (log) writeLine(`${formatRequestLog(observation, status)}\n`);
  });
}

/**
 * A stdout that cannot be written to (its reader gone: EPIPE) loses the line and nothing else, as with console.log,
 * which guards its writes the same way: the stream's 'error' event, with no listener, would end the process.
 */
function writeLine(line: string): void {
  try {
    process.stdout.write(line, afterWrite);
  } catch {
    // Written synchronously and failed (a file or TTY): the line is lost, the request is not.
  }
}

function afterWrite(error?: Error | null): void {
  // Whatever else listens (a pipe into stdout re-emits the error once it has unpiped), ours stays: the stream is broken.
  if (error && !process.stdout.listeners('error').includes(ignore)) process.stdout.on('error', ignore);
}

function ignore(): void {}
