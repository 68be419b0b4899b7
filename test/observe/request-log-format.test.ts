/**
 * The request log line is written out field by field (lib/observe/request-log.ts) rather than through an object and
 * JSON.stringify: it must still be exactly what JSON.stringify writes for the same record, whatever a client put in
 * the names it chose, and its time exactly what Date.prototype.toISOString writes.
 */

import { describe, expect, test } from 'vitest';
import { formatRequestLog, isoTime } from '../../lib/observe/request-log.js';
import { Observation } from '../../lib/observe/observation.js';
import { traceIdOf } from '../../lib/protocol/trace-context.js';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

function observe(body: unknown, headers: Record<string, string> = {}): Observation {
  const observation = new Observation(new Request('http://localhost/mcp', { method: 'POST', headers }));
  observation.noteMessages({ kind: 'legacy', version: '2025-11-25', batch: Array.isArray(body), messages: Array.isArray(body) ? body : [body] });
  return observation;
}

/** The record the line stands for, as the earlier object-and-JSON.stringify form wrote it. */
function reference(observation: Observation, status: number, durationMs: number): string {
  return JSON.stringify({
    time: new Date(observation.startedAt).toISOString(),
    msg: 'mcp request',
    method: observation.method,
    tool: observation.tool,
    batch: observation.batch,
    caller: observation.caller,
    era: observation.era,
    protocol: observation.protocolVersion,
    status,
    duration_ms: durationMs,
    upstream_ms: observation.upstreamMs === undefined ? undefined : Math.round(observation.upstreamMs * 10) / 10,
    error: observation.errorType(status),
    cause: observation.cause,
    trace_id: observation.trace && traceIdOf(observation.trace.traceparent),
    ...usageRecord(observation),
  });
}

/** The usage fields of the record: none without a model request; "unknown" tokens when no request said its usage. */
function usageRecord(observation: Observation): Record<string, unknown> {
  const usage = observation.usageTotal();
  if (!usage) return {};
  if (usage.unknownRequests === usage.modelRequests) return { model_requests: usage.modelRequests, input_tokens: 'unknown', output_tokens: 'unknown' };
  return {
    model_requests: usage.modelRequests, input_tokens: usage.input, output_tokens: usage.output, cached_input_tokens: usage.cachedInput,
    cache_write_tokens: usage.cacheWrite, unknown_requests: usage.unknownRequests || undefined, tokens_estimated: usage.estimated || undefined,
  };
}

/** The line with its duration replaced by the one the reference is given (the clock moves between the two). */
function lineWith(observation: Observation, status: number): { line: string; durationMs: number } {
  const line = formatRequestLog(observation, status);
  const durationMs = JSON.parse(line).duration_ms as number;
  return { line, durationMs };
}

describe('a request log line is the JSON.stringify of its record', () => {
  const odd = ['tools/call', 'say "hi"\\', 'line\nbreak\ttab', '\u0000\u001f control', 'naïve ☃ 𝄞', '\ud800 lone surrogate', '</script>', ''];

  test.each(odd)('whatever method name a client sent: %j', (method) => {
    const observation = observe({ jsonrpc: '2.0', id: 1, method, params: { name: method } });
    const { line, durationMs } = lineWith(observation, 200);
    expect(line).toBe(reference(observation, 200, durationMs));
  });

  test('a tool call with its tool, upstream time, cause, error and trace id', () => {
    const observation = observe({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chat "x"' } }, { traceparent: TRACEPARENT });
    observation.noteCaller({ subject: 's', scopes: [] }, 'session');
    observation.noteUpstream(12.345);
    observation.noteCause('upstream_connection_failed:ECONNRESET');
    observation.noteReply({ jsonrpc: '2.0', id: 1, result: { isError: true, content: [] } });
    const { line, durationMs } = lineWith(observation, 200);
    expect(line).toBe(reference(observation, 200, durationMs));
    expect(JSON.parse(line)).toMatchObject({ tool: 'chat "x"', caller: 'token+session', upstream_ms: 12.3, error: 'tool_error', trace_id: traceIdOf(TRACEPARENT) });
  });

  test('a batch, and a refusal with no method', () => {
    const batch = observe([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }]);
    const b = lineWith(batch, 200);
    expect(b.line).toBe(reference(batch, 200, b.durationMs));
    const refused = new Observation(new Request('http://localhost/mcp', { method: 'POST' }));
    const r = lineWith(refused, 401);
    expect(r.line).toBe(reference(refused, 401, r.durationMs));
    expect(JSON.parse(r.line)).toEqual({ time: expect.any(String), msg: 'mcp request', caller: 'anonymous', status: 401, duration_ms: r.durationMs, error: '401' });
  });
});

describe('the tokens a call\'s agents spent', () => {
  const chat = () => observe({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chat_with_agent' } });

  test('known, some unknown, estimated: the counts, how many requests are missing from them, and that they are estimates', () => {
    const observation = chat();
    observation.usage.record({ input: 1200, output: 340, cachedInput: 1000, cacheWrite: 20 });
    let { line, durationMs } = lineWith(observation, 200);
    expect(line).toBe(reference(observation, 200, durationMs));
    expect(JSON.parse(line)).toMatchObject({ model_requests: 1, input_tokens: 1200, output_tokens: 340, cached_input_tokens: 1000, cache_write_tokens: 20 });
    observation.usage.record(undefined);
    observation.usage.record({ input: 5, output: 5, estimated: true });
    ({ line, durationMs } = lineWith(observation, 200));
    expect(line).toBe(reference(observation, 200, durationMs));
    expect(JSON.parse(line)).toMatchObject({ model_requests: 3, input_tokens: 1205, unknown_requests: 1, tokens_estimated: true });
  });

  test('every request unknown: the tokens say "unknown"', () => {
    const observation = chat();
    observation.usage.record(undefined);
    const { line, durationMs } = lineWith(observation, 200);
    expect(line).toBe(reference(observation, 200, durationMs));
    expect(JSON.parse(line)).toMatchObject({ model_requests: 1, input_tokens: 'unknown', output_tokens: 'unknown' });
  });
});

describe('isoTime', () => {
  test('writes what toISOString writes, across seconds, minutes, days and years, in any order', () => {
    const base = Date.UTC(2026, 11, 31, 23, 59, 58, 997);
    const times = [base, base + 1, base + 2, base + 3, base + 1004, base + 1003, 0, 999, 1000, Date.UTC(2000, 1, 29, 0, 0, 0, 5), base + 2, Date.now()];
    for (const ms of times) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });
});
