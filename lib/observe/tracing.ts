/**
 * OpenTelemetry spans and metrics per the MCP semantic conventions
 * (https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/mcp.md): one SERVER span
 * per MCP message named `{mcp.method.name} {target}`, child of the client's trace context, with the `vercel.rpc.*`
 * attributes of mcp-handler 2.4 (vercel-rpc.ts), and the `mcp.server.operation.duration` histogram.
 *
 * `@opentelemetry/api` costs ~40 ms to import, so it is imported only once an SDK has registered itself
 * (`registerOTel` of @vercel/otel, `NodeSDK.start()`): the API keeps its registrations in one global, which is
 * read here without importing anything. No SDK, no import and no work.
 */

import type { RequestSpan, SpanSource } from './spans.js';

export type { CallerClues, RequestSpan, SpanSource } from './spans.js';

/** The global the API's registrations live in (@opentelemetry/api src/internal/global-utils.ts), for API 1.x. */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

let begin: ((observation: SpanSource) => RequestSpan) | undefined;

/** True once an SDK registered a tracer provider with any copy of @opentelemetry/api 1.x. */
export function sdkRegistered(): boolean {
  return (globalThis as Record<symbol, { trace?: unknown } | undefined>)[API_GLOBAL]?.trace !== undefined;
}

/** A span for the observed request, or undefined when no SDK is registered (the common, free case). */
export function startRequestSpan(observation: SpanSource): RequestSpan | Promise<RequestSpan> | undefined {
  if (!sdkRegistered()) return undefined;
  if (begin) return begin(observation);
  return Promise.all([import('@opentelemetry/api'), import('./spans.js')]).then(([api, { beginSpan }]) => {
    begin = (source) => beginSpan(api, source);
    return begin(observation);
  });
}
