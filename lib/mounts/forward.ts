/**
 * Requests forwarded to a mounted server. Progress flows back to the caller; the caller's cancellation
 * aborts the downstream request (the client sends `notifications/cancelled`), and so does the mount's
 * `maxCallMs` (lib/mounts/lifetime.ts); the downstream answer comes back as it was: a tool result (error or
 * not, with its structured content) unchanged, and a JSON-RPC error with its code, message and data. Failures
 * of the connection itself are tool errors a model can read.
 */

import { INTERNAL_ERROR, INVALID_PARAMS, McpError, RESOURCE_NOT_FOUND_LEGACY, httpStatusFor } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import type { Tool } from '@modelcontextprotocol/client';
import type { RequestContext } from '../server/context.js';
import { CAPABILITY_BY_CLIENT_METHOD, allowsClientRequest } from '../protocol/client-capabilities.js';
import { META_CLIENT_CAPABILITIES } from '../protocol/meta.js';
import { inputRequired, type InputRequired, type PromptResult, type ResourceContent, type ToolResult } from '../server/registry.js';
import type { CallSettings } from './config.js';
import type { CallSession, MountSession } from './connect.js';
import { CallLifetime } from './lifetime.js';
import { createRelay, refusalText, type Relay } from './relay.js';

/**
 * A ready mount as its forwarded requests see it: its call settings as configured (config.ts MountInput: the timeout,
 * `maxCallMs`, `inputRounds`, `maxQuestions`, the `scopes` a caller needs) and its connection.
 */
export interface MountLink extends CallSettings {
  name: string;
  session: MountSession;
  /** The connection failed under a request: drop it so the next request reconnects. */
  broken(reason: string): void;
}

type Failure =
  | { kind: 'protocol'; code: number; message: string; data?: unknown }
  | { kind: 'cancelled' | 'timeout' | 'unavailable'; reason: string };

/**
 * The call's trace context for the mounted server, in `params._meta` as the OpenTelemetry MCP conventions carry it
 * (a mount's connection is shared by every caller, so per-request HTTP headers are not an option).
 */
function traceMeta(ctx: RequestContext): { _meta?: Record<string, string> } {
  const headers = ctx.observation?.traceHeaders;
  return headers ? { _meta: { ...headers } } : {};
}

/**
 * A tool call on the mount. Questions the mounted server asks come back to our caller (lib/mounts/relay.ts):
 * a 2026-07-28 mount asks through MRTR, which a 2026-07-28 caller answers itself (`forwardModern`); a 2025 mount
 * pushes requests, answered on a connection of the call's own when the caller declared something to ask.
 */
export async function forwardToolCall(link: MountLink, tool: Tool, args: Record<string, unknown>, ctx: RequestContext): Promise<ToolResult | InputRequired> {
  const asked = performance.now();
  const lifetime = new CallLifetime(link.name, link.maxCallMs, ctx.signal);
  const relay = createRelay(link, ctx, lifetime.signal);
  let own: CallSession | undefined;
  try {
    if (link.session.era === 'modern') return await forwardModern(link, tool, args, ctx, relay, lifetime);
    if (Object.keys(relay.capabilities).length > 0) own = await link.session.openForCall(relay.capabilities, relay.answer);
    const result = await (own ?? link.session).client.callTool(
      { name: tool.name, arguments: args, ...traceMeta(ctx) }, toolOptions(link, tool, ctx, lifetime.signal));
    return withRefusal(toToolResult(result), relay);
  } catch (error) {
    const failure = classify(link, error, ctx, own ?? link.session, lifetime);
    if (failure.kind === 'protocol') throw toMcpError(link, failure);
    // The mounted server, an upstream this call forwards to, did not answer it in time or at all (the span says api_error).
    if (failure.kind !== 'cancelled') ctx.observation?.noteToolFailure?.({ outcome: 'api_error', errorType: failure.kind === 'timeout' ? 'timeout' : 'api_error' });
    return { content: [{ type: 'text', text: `Mount ${link.name}: ${failure.reason}` }], isError: true };
  } finally {
    // Questions still waiting for the caller end with the call (lib/server/client-requests.ts).
    lifetime.end();
    if (own) void own.close().catch(() => undefined);
    ctx.observation?.noteUpstream(performance.now() - asked);
  }
}

/**
 * A tool call on a 2026-07-28 mount, which tells it exactly the caller's client capabilities. Its `input_required`
 * goes to a 2026-07-28 caller as ours: our signed requestState carries the mount's, and the retry goes to the
 * mount with the caller's answers and the mount's state. A 2025 caller is asked each question on its stream
 * here, and the mount retried, for at most the mount's `inputRounds`.
 */
async function forwardModern(
  link: MountLink, tool: Tool, args: Record<string, unknown>, ctx: RequestContext, relay: Relay, lifetime: CallLifetime,
): Promise<ToolResult | InputRequired> {
  const trace = traceMeta(ctx)._meta;
  let round: Record<string, unknown> = ctx.era === 'modern' ? retryOf(link, ctx) : {};
  for (let rounds = 0; ; rounds++) {
    const params = { name: tool.name, arguments: args, ...round, _meta: { ...trace, [META_CLIENT_CAPABILITIES]: relay.capabilities } };
    const result: unknown = await link.session.client.callTool(params, { ...toolOptions(link, tool, ctx, lifetime.signal), allowInputRequired: true });
    if (!isMountInputRequired(result)) return toToolResult(result as Record<string, unknown>);
    const requests = Object.entries(result.inputRequests ?? {});
    const unasked = requests.find(([, r]) => !allowsClientRequest(relay.capabilities, r.method, r.params));
    if (unasked) {
      const [, { method }] = unasked;
      return refusedResult(refusalText(link.name, method, CAPABILITY_BY_CLIENT_METHOD[method] ?? method));
    }
    const mountState = result.requestState === undefined ? {} : { state: result.requestState };
    if (ctx.era === 'modern') return inputRequired(result.inputRequests, { mount: link.name, ...mountState });
    if (rounds >= link.inputRounds) {
      return refusedResult(`Mount ${link.name} still asked for input after ${link.inputRounds} rounds (its inputRounds setting).`);
    }
    const answers = await Promise.all(requests.map(async ([key, r]) => [key, await relay.answer(r.method, r.params, lifetime.signal)] as const))
      .catch((error: unknown) => {
        if (relay.overBound === undefined) throw error;
        return undefined;
      });
    // Past maxQuestions the mount cannot be retried with some of its questions unanswered: the call ends here.
    if (answers === undefined) return refusedResult(relay.overBound!);
    round = { inputResponses: Object.fromEntries(answers), ...(result.requestState === undefined ? {} : { requestState: result.requestState }) };
  }
}

/** A 2026-07-28 caller's retry: its answers, and the mount's state from inside our verified requestState. */
function retryOf(link: MountLink, ctx: RequestContext): Record<string, unknown> {
  const state = isObject(ctx.requestState) && ctx.requestState.mount === link.name ? ctx.requestState.state : undefined;
  const answers = Object.keys(ctx.inputResponses).length > 0 ? { inputResponses: ctx.inputResponses } : {};
  return { ...answers, ...(typeof state === 'string' ? { requestState: state } : {}) };
}

interface MountInputRequired {
  resultType: 'input_required';
  inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
  requestState?: string;
}

function isMountInputRequired(value: unknown): value is MountInputRequired {
  return isObject(value) && value.resultType === 'input_required';
}

function toToolResult(result: Record<string, unknown>): ToolResult {
  return {
    content: result.content as ToolResult['content'],
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
    ...(result.isError ? { isError: true } : {}),
    ...(isObject(result._meta) ? { _meta: result._meta } : {}),
  };
}

function refusedResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * A result after a refused question leads with the reason, which the mount's own text may not carry: a failed
 * one after any refusal, any one after the questions bound cut the call's questions short (the caller would not
 * otherwise know that some went unasked).
 */
function withRefusal(result: ToolResult, relay: Relay): ToolResult {
  const reason = relay.overBound ?? (result.isError ? relay.refusal : undefined);
  return reason === undefined ? result : { ...result, content: [{ type: 'text', text: reason }, ...result.content] };
}

/** One request on the mount's shared connection, within a lifetime of its own (maxCallMs): its result or its failure. */
async function within<T>(link: MountLink, ctx: RequestContext, send: (signal: AbortSignal) => Promise<T>): Promise<{ value: T } | { failure: Failure }> {
  const lifetime = new CallLifetime(link.name, link.maxCallMs, ctx.signal);
  try {
    return { value: await send(lifetime.signal) };
  } catch (error) {
    return { failure: classify(link, error, ctx, link.session, lifetime) };
  } finally {
    lifetime.end();
  }
}

/** The contents of `uri`; none when the mounted server has no such resource (the caller answers not-found). */
export async function forwardRead(link: MountLink, uri: string, ctx: RequestContext): Promise<ResourceContent[]> {
  const read = await within(link, ctx, (signal) =>
    link.session.client.readResource({ uri, ...traceMeta(ctx) }, { ...requestOptions(link, ctx, signal), cacheMode: 'bypass' as const }));
  if ('value' in read) return read.value.contents as ResourceContent[];
  if (read.failure.kind === 'protocol' && isNotFound(read.failure)) return [];
  throw toMcpError(link, read.failure);
}

export async function forwardPrompt(link: MountLink, prompt: string, args: Record<string, string>, ctx: RequestContext): Promise<PromptResult> {
  const got = await within(link, ctx, (signal) =>
    link.session.client.getPrompt({ name: prompt, arguments: args, ...traceMeta(ctx) }, requestOptions(link, ctx, signal)));
  if ('failure' in got) throw toMcpError(link, got.failure);
  const { description, messages } = got.value;
  return { ...(description ? { description } : {}), messages: messages as PromptResult['messages'] };
}

type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

/** The mounted server's completions for an argument of its prompt or template; none when it offers no completions. */
export async function forwardComplete(
  link: MountLink,
  ref: CompletionRef,
  argument: string,
  value: string,
  context: Record<string, string>,
  ctx: RequestContext,
): Promise<string[]> {
  if (!link.session.client.getServerCapabilities()?.completions) return [];
  const completed = await within(link, ctx, (signal) => link.session.client.complete({
    ref,
    argument: { name: argument, value },
    ...(Object.keys(context).length > 0 ? { context: { arguments: context } } : {}),
  }, requestOptions(link, ctx, signal)));
  if ('failure' in completed) throw toMcpError(link, completed.failure);
  return completed.value.completion.values;
}

/**
 * A tool call's options carry the tool as listed: the client mirrors its `x-mcp-header` arguments and checks its
 * output schema from it, where it would otherwise look the tool up in a full `tools/list` of its own, which the
 * bounded listing (lib/mounts/listing.ts) does not leave behind.
 */
function toolOptions(link: MountLink, tool: Tool, ctx: RequestContext, signal: AbortSignal) {
  return { ...requestOptions(link, ctx, signal), toolDefinition: tool };
}

/** `signal`: what ends the request, the call's lifetime (lib/mounts/lifetime.ts) where it has one. */
export function requestOptions(link: MountLink, ctx: RequestContext, signal: AbortSignal = ctx.signal) {
  return {
    signal,
    timeout: link.callTimeoutMs,
    // A long tool that reports progress is alive; the call's lifetime (maxCallMs) still bounds it.
    resetTimeoutOnProgress: true,
    onprogress: ({ progress, total, message }: { progress: number; total?: number; message?: string }) =>
      ctx.progress(progress, total, message),
  };
}

export function classify(
  link: MountLink, error: unknown, ctx: RequestContext, session: Pick<CallSession, 'breach'> = link.session, lifetime?: Pick<CallLifetime, 'expired'>,
): Failure {
  if (ctx.signal.aborted) return { kind: 'cancelled', reason: 'the call was cancelled.' };
  if (lifetime?.expired) return { kind: 'timeout', reason: `the call ran past its total bound of ${link.maxCallMs} ms (maxCallMs); it was cancelled at the mount.` };
  // A reply past a bound closed the connection, so the request failed as closed: the bound is the reason.
  if (session.breach !== undefined) {
    link.broken(session.breach);
    return { kind: 'unavailable', reason: `${session.breach}; the connection was dropped, and the next request reconnects.` };
  }
  const { code, message, data } = (isObject(error) ? error : {}) as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof code === 'number') return { kind: 'protocol', code, message: String(message ?? ''), data };
  if (code === 'REQUEST_TIMEOUT') return { kind: 'timeout', reason: `no answer within ${link.callTimeoutMs} ms.` };
  const reason = describeFailure(error);
  link.broken(reason);
  return { kind: 'unavailable', reason: `the server is unavailable (${reason}).` };
}

/**
 * A downstream error keeps its code unless the code would change the HTTP status of our reply: those codes
 * describe the client's request to us (malformed, unknown method, header mismatch), which this one was not.
 */
export function toMcpError(link: MountLink, failure: Failure): McpError {
  if (failure.kind !== 'protocol') return new McpError(INTERNAL_ERROR, `Mount ${link.name}: ${failure.reason}`);
  const { code, message, data } = failure;
  if (httpStatusFor('legacy', code) === 200 && httpStatusFor('modern', code) === 200) return new McpError(code, message, data);
  return new McpError(INTERNAL_ERROR, `Mount ${link.name} answered ${code}: ${message}`);
}

/** Both not-found shapes: -32002 (legacy) and -32602 with `data.uri` (2026-07-28, SEP-2164). */
function isNotFound(failure: { code: number; data?: unknown }): boolean {
  return failure.code === RESOURCE_NOT_FOUND_LEGACY || (failure.code === INVALID_PARAMS && isObject(failure.data) && 'uri' in failure.data);
}

/** A short cause for logs and status: the system error code or HTTP status, never a URL or a header. */
export function describeFailure(error: unknown): string {
  const value = (isObject(error) ? error : {}) as { code?: unknown; message?: unknown; data?: unknown; cause?: unknown };
  const status = isObject(value.data) && typeof value.data.status === 'number' ? value.data.status : undefined;
  const kind = systemCode(error) ?? (status !== undefined ? `HTTP ${status}` : typeof value.code === 'string' ? value.code : undefined);
  // Without a code, the cause says what happened ("fetch failed" alone does not).
  const cause = kind === undefined && isObject(value.cause) && typeof value.cause.message === 'string' ? value.cause.message : undefined;
  const message = typeof value.message === 'string' ? value.message : String(error);
  return [kind, message, cause].filter(Boolean).join(': ').replace(/\bhttps?:\/\/\S+/g, '<url>').slice(0, 300);
}

/** The first system error code (ECONNREFUSED, ENOTFOUND…) among an error's causes; fetch nests it. */
function systemCode(error: unknown, depth = 0): string | undefined {
  if (!isObject(error) || depth > 4) return undefined;
  if (depth > 0 && typeof error.code === 'string' && /^E[A-Z_]+$/.test(error.code)) return error.code;
  const nested = Array.isArray(error.errors) ? error.errors[0] : undefined;
  return systemCode(error.cause, depth + 1) ?? systemCode(nested, depth + 1);
}
