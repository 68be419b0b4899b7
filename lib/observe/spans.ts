/**
 * The spans and the metric themselves, loaded with `@opentelemetry/api` once an SDK is registered
 * (lib/observe/tracing.ts decides when).
 */

import type { RequestId } from '../protocol/jsonrpc.js';
// Types only from modules on the start path: a value import would make the bundler split that module into a
// chunk the MCP function then loads at start (bench/cold-start.mjs measures it).
import type { TraceContext } from '../protocol/trace-context.js';

type Api = typeof import('@opentelemetry/api');
type Span = import('@opentelemetry/api').Span;
type Context = import('@opentelemetry/api').Context;
type Histogram = import('@opentelemetry/api').Histogram;

/** What a span is made of: the request's observation (observation.ts), by the fields read here. */
export interface SpanSource {
  readonly startedAt: number;
  readonly method?: string;
  readonly tool?: string;
  readonly protocolVersion?: string;
  readonly requestId?: RequestId;
  readonly trace?: TraceContext;
  elapsedMs(): number;
  errorType(status: number): string | undefined;
  carry(context: TraceContext): void;
}

/** A started server span: `within` runs the call in its context; `end` closes it with the outcome. */
export interface RequestSpan {
  within<T>(run: () => T): T;
  end(status: number): void;
}

const SCOPE = 'agent-mcp';

let duration: Histogram | undefined;

function parentContext(otel: Api, observation: SpanSource): Context {
  const incoming = observation.trace;
  if (!incoming) return otel.ROOT_CONTEXT;
  // Validated when read (lib/protocol/trace-context.ts): version-traceid-parentid-flags.
  const [, traceId, spanId, flags] = incoming.traceparent.split('-');
  return otel.trace.setSpanContext(otel.ROOT_CONTEXT, {
    traceId: traceId!,
    spanId: spanId!,
    traceFlags: Number.parseInt(flags!, 16) & 1,
    isRemote: true,
    traceState: incoming.tracestate ? otel.createTraceState(incoming.tracestate) : undefined,
  });
}

/** Starts the server span of `observation`, the child of its client's trace context. */
export function beginSpan(otel: Api, observation: SpanSource): RequestSpan {
  const method = observation.method ?? 'unknown';
  const attributes: Record<string, string> = { 'mcp.method.name': method, 'network.transport': 'tcp', 'network.protocol.name': 'http' };
  if (observation.protocolVersion) attributes['mcp.protocol.version'] = observation.protocolVersion;
  if (observation.requestId !== undefined) attributes['jsonrpc.request.id'] = String(observation.requestId);
  if (observation.tool) attributes['gen_ai.tool.name'] = observation.tool;
  const span: Span = otel.trace.getTracer(SCOPE).startSpan(observation.tool ? `${method} ${observation.tool}` : method, {
    kind: otel.SpanKind.SERVER,
    startTime: observation.startedAt,
    attributes,
  }, parentContext(otel, observation));
  const active = otel.trace.setSpan(otel.ROOT_CONTEXT, span);
  const own = span.spanContext();
  // What the agent and mounted servers receive: this span as their parent, the client's tracestate kept.
  observation.carry({
    traceparent: `00-${own.traceId}-${own.spanId}-${own.traceFlags.toString(16).padStart(2, '0')}`,
    tracestate: own.traceState?.serialize() || observation.trace?.tracestate,
  });
  return {
    within: (run) => otel.context.with(active, run),
    end(status) {
      const errorType = observation.errorType(status);
      if (errorType) {
        span.setAttribute('error.type', errorType);
        span.setStatus({ code: otel.SpanStatusCode.ERROR });
      }
      span.end();
      duration ??= otel.metrics.getMeter(SCOPE).createHistogram('mcp.server.operation.duration', {
        unit: 's',
        description: 'MCP request duration as observed on the receiver from the time it was received until the result or ack is sent.',
        advice: { explicitBucketBoundaries: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300] },
      });
      // The request id is a span attribute only: on a metric it would make a series per call.
      const { 'jsonrpc.request.id': _id, ...dimensions } = attributes;
      duration.record(observation.elapsedMs() / 1000, errorType ? { ...dimensions, 'error.type': errorType } : dimensions);
    },
  };
}
