/**
 * OpenTelemetry spans and metrics per the MCP semantic conventions
 * (https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/mcp.md): one SERVER span
 * per MCP request named `{mcp.method.name} {target}`, child of the client's trace context, and the
 * `mcp.server.operation.duration` histogram.
 *
 * `@opentelemetry/api` costs ~40 ms to import, so it is imported only once an SDK has registered itself
 * (`registerOTel` of @vercel/otel, `NodeSDK.start()`): the API keeps its registrations in one global, which is
 * read here without importing anything. No SDK, no import and no work.
 */

import { traceIdOf, type TraceContext } from '../protocol/trace-context.js';
import type { RequestId } from '../protocol/jsonrpc.js';

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

type Api = typeof import('@opentelemetry/api');
type Span = import('@opentelemetry/api').Span;
type Context = import('@opentelemetry/api').Context;
type Histogram = import('@opentelemetry/api').Histogram;

/** The global the API's registrations live in (@opentelemetry/api src/internal/global-utils.ts), for API 1.x. */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');
const SCOPE = 'agent-mcp';

let api: Api | undefined;
let duration: Histogram | undefined;

/** True once an SDK registered a tracer provider with any copy of @opentelemetry/api 1.x. */
export function sdkRegistered(): boolean {
  return (globalThis as Record<symbol, { trace?: unknown } | undefined>)[API_GLOBAL]?.trace !== undefined;
}

/** A started server span: `within` runs the call in its context; `end` closes it with the outcome. */
export interface RequestSpan {
  within<T>(run: () => T): T;
  end(status: number): void;
}

/** A span for the observed request, or undefined when no SDK is registered (the common, free case). */
export function startRequestSpan(observation: SpanSource): RequestSpan | Promise<RequestSpan> | undefined {
  if (!sdkRegistered()) return undefined;
  if (api) return begin(api, observation);
  return import('@opentelemetry/api').then((loaded) => begin(api = loaded, observation));
}

function parentContext(otel: Api, observation: SpanSource): Context {
  const incoming = observation.trace;
  const traceId = incoming && traceIdOf(incoming.traceparent);
  if (!incoming || !traceId) return otel.ROOT_CONTEXT;
  const [, , spanId, flags] = incoming.traceparent.split('-');
  return otel.trace.setSpanContext(otel.ROOT_CONTEXT, {
    traceId,
    spanId: spanId!,
    traceFlags: Number.parseInt(flags!, 16) & 1,
    isRemote: true,
    traceState: incoming.tracestate ? otel.createTraceState(incoming.tracestate) : undefined,
  });
}

function begin(otel: Api, observation: SpanSource): RequestSpan {
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
