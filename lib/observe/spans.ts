/**
 * The spans and the metric themselves, loaded with `@opentelemetry/api` once an SDK is registered
 * (lib/observe/tracing.ts decides when). Each span carries the OpenTelemetry MCP conventions' attributes and the
 * `vercel.rpc.*` ones Vercel's MCP observability reads (vercel-rpc.ts), as mcp-handler 2.4.0 writes them.
 */

import type { RequestId } from '../protocol/jsonrpc.js';
// Types only from modules on the start path: a value import would make the bundler split that module into a
// chunk the MCP function then loads at start (bench/cold-start.mjs measures it).
import type { TraceContext } from '../protocol/trace-context.js';
import type { Ended } from './outcome.js';
import type { UsageTotal } from '../usage/meter.js';
import {
  clientNameOf, ROUTE, VERCEL_RPC_AUTH_OUTCOME, VERCEL_RPC_CLIENT_NAME, VERCEL_RPC_OUTCOME, VERCEL_RPC_ROUTE,
} from './vercel-rpc.js';

type Api = typeof import('@opentelemetry/api');
type Span = import('@opentelemetry/api').Span;
type Context = import('@opentelemetry/api').Context;
type Histogram = import('@opentelemetry/api').Histogram;

/** Who sent the request, as far as a span says (the kind of client, whether it was authorized): one per request. */
export interface CallerClues {
  userAgent?: string;
  /** The verified token's client id (a CIMD URL for clients that use one). */
  clientId?: string;
  authorized: boolean;
}

/** What a span is made of: one message's record (observation.ts Operation), by the fields read here. */
export interface SpanSource {
  readonly startedAt: number;
  /** `mcp.method.name`: a method the server knows, or `other`. */
  readonly methodName?: string;
  readonly target?: string;
  readonly protocolVersion?: string;
  readonly requestId?: RequestId;
  readonly trace?: TraceContext;
  readonly clues: CallerClues;
  readonly clientInfoName?: string;
  elapsedMs(): number;
  errorType(status: number): string | undefined;
  ended(status: number): Ended;
  reachedTarget(): boolean;
  errorCode(): number | undefined;
  carry(context: TraceContext): void;
  /** What the message's agents spent; undefined when it made no model request. */
  usageTotal(): UsageTotal | undefined;
}

/** A started server span: `within` runs the call in its context; `end` closes it with the outcome. */
export interface RequestSpan {
  within<T>(run: () => T): T;
  end(status: number): void;
}

const SCOPE = 'agent-mcp';
/** The attribute that names a method's target, once the reply shows the call reached it (mcp-handler TARGET_ATTRIBUTES). */
const TARGET_ATTRIBUTES: Readonly<Record<string, string>> = { 'tools/call': 'gen_ai.tool.name', 'prompts/get': 'gen_ai.prompt.name' };
/** A longer request id is left off the span, as mcp-handler leaves it (MAX_REQUEST_ID_LENGTH). */
const MAX_REQUEST_ID = 128;

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

/** Starts the server span of one message, the child of its client's trace context. */
export function beginSpan(otel: Api, source: SpanSource): RequestSpan {
  const method = source.methodName ?? 'other';
  // The conventions' attributes, which the duration metric shares (but the request id, which would make a series per call).
  const common: Record<string, string> = { 'mcp.method.name': method, 'network.transport': 'tcp', 'network.protocol.name': 'http' };
  if (source.protocolVersion) common['mcp.protocol.version'] = source.protocolVersion;
  const attributes: Record<string, string> = {
    ...common,
    [VERCEL_RPC_ROUTE]: ROUTE,
    [VERCEL_RPC_CLIENT_NAME]: clientNameOf({ ...source.clues, clientInfoName: source.clientInfoName }),
    [VERCEL_RPC_AUTH_OUTCOME]: source.clues.authorized ? 'authorized' : 'anonymous',
  };
  const id = source.requestId === undefined ? undefined : String(source.requestId);
  if (id !== undefined && id.length <= MAX_REQUEST_ID) attributes['jsonrpc.request.id'] = id;
  if (method === 'tools/call') attributes['gen_ai.operation.name'] = 'execute_tool';
  const span: Span = otel.trace.getTracer(SCOPE).startSpan(method, {
    kind: otel.SpanKind.SERVER,
    startTime: source.startedAt,
    attributes,
  }, parentContext(otel, source));
  const active = otel.trace.setSpan(otel.ROOT_CONTEXT, span);
  const own = span.spanContext();
  // What the agent and mounted servers receive: this span as their parent, the client's tracestate kept.
  source.carry({
    traceparent: `00-${own.traceId}-${own.spanId}-${own.traceFlags.toString(16).padStart(2, '0')}`,
    tracestate: own.traceState?.serialize() || source.trace?.tracestate,
  });
  return {
    within: (run) => otel.context.with(active, run),
    end(status) {
      const { outcome } = source.ended(status);
      span.setAttribute(VERCEL_RPC_OUTCOME, outcome);
      // A name the client sent is on the span only once the reply shows it named a real tool or prompt, so a
      // client cannot mint span names or metric series by calling names that do not exist.
      const targetKey = TARGET_ATTRIBUTES[method];
      const target = targetKey && source.target !== undefined && source.reachedTarget() ? source.target : undefined;
      if (target !== undefined) {
        span.setAttribute(targetKey!, target);
        span.updateName(`${method} ${target}`);
        common[targetKey!] = target;
      }
      const code = source.errorCode();
      if (code !== undefined) span.setAttribute('rpc.response.status_code', String(code));
      // The GenAI conventions' token counts, only when every request said its usage: a partial sum would read as the whole.
      const usage = source.usageTotal();
      if (usage !== undefined && usage.unknownRequests === 0) {
        span.setAttribute('gen_ai.usage.input_tokens', usage.input);
        span.setAttribute('gen_ai.usage.output_tokens', usage.output);
      }
      const errorType = source.errorType(status);
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
      duration.record(source.elapsedMs() / 1000, errorType ? { ...common, 'error.type': errorType } : common);
    },
  };
}
