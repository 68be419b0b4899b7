/**
 * The OpenAI Responses API (`POST …/v1/responses`, `stream: true`). The upstream keeps the conversation: each turn
 * sends only the new message with `previous_response_id`, the id of the conversation's last response, which we keep
 * per conversation (types.ts UpstreamState, keyed by lib/server/caller.ts), never a client's string. The stream is
 * read by its documented event types: `response.output_text.delta` is the reply; `response.output_item.added` of a
 * `function_call` item is a call (its arguments complete at `response.output_item.done`); an item the upstream runs
 * itself (`web_search_call`, `file_search_call`, `code_interpreter_call`, `mcp_call`…) is a progress line naming it;
 * reasoning events are never part of the reply; `response.completed` (or `response.incomplete`) ends it, and
 * `response.failed` or `error` is the upstream's error (error-text.ts). An agent given tools runs the shared loop
 * (tool-loop.ts): the next request continues the previous response with one `function_call_output` item per call.
 */

import type { ReportUsage } from '../budget.js';
import type { OnText } from '../push.js';
import type { FunctionCall, FunctionSpec, ToolStep } from '../tool-loop.js';
import type { ModelRequestUsage } from '../../usage/meter.js';
import type { AgentProfile, AgentTurn } from '../types.js';
import type { FormatSettings, LazyFormat } from './settings.js';
import type { Kit } from './kit.js';
import type { UpstreamTarget } from './request.js';
import { isEventStream, parseObject, readAll, upstreamId } from './wire.js';

/** `…/v1` or the full `…/v1/responses`. */
export function responsesUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/responses') ? trimmed : `${trimmed}/responses`;
}

/** What a conversation keeps: the id of its last response. */
interface Handle {
  responseId: string;
}

const handleOf = (value: unknown): Handle | undefined =>
  (typeof value === 'object' && value !== null && typeof (value as Handle).responseId === 'string' ? (value as Handle) : undefined);

export const createReply: LazyFormat['createReply'] = (kit, profile, settings) => {
  const target: UpstreamTarget = { ...settings.target, url: responsesUrl(settings.target.url) };
  // Pushed (push.ts): each text delta goes from the socket's data handler to the turn's sink with no promise of its own.
  return (turn: AgentTurn) => kit.pushedReply(async (onText) => {
    // The response the next request continues: the conversation's last one, then each of this turn's.
    let previous = handleOf(turn.upstreamState?.value)?.responseId;
    const complete = (steps: readonly ToolStep[], functions: FunctionSpec[] | undefined, onText: OnText) => kit.meteredRequest(turn.modelCalls, profile.id, async (report) => {
      const last = steps.at(-1);
      const input = last
        ? last.calls.map((call, i) => ({ type: 'function_call_output', call_id: call.id, output: last.results[i]! }))
        : [{ role: 'user', content: turn.message }];
      const answer = await request(kit, profile, target, settings, turn, report, onText, {
        model: settings.model,
        input,
        ...(settings.systemPrompt ? { instructions: settings.systemPrompt } : {}),
        ...(previous ? { previous_response_id: previous } : {}),
        ...(functions ? { tools: functions.map((f) => ({ type: 'function', name: f.name, description: f.description, parameters: f.parameters })) } : {}),
        store: true,
        stream: true,
      });
      previous = answer.responseId ?? previous;
      return answer;
    }, turn.usage);
    if (!turn.tools) await complete([], undefined, onText);
    else {
      await kit.runToolLoop({
        agentId: profile.id, tools: turn.tools, complete, maxSteps: settings.maxToolSteps, maxCallsPerStep: settings.maxToolCalls,
        maxJsonDepth: settings.target.maxJsonDepth, signal: turn.signal,
      }, onText);
    }
    if (previous) turn.upstreamState?.save({ responseId: previous } satisfies Handle);
  });
};

/** A response's `usage` as the meter takes it (it checks the numbers); input tokens include the cached ones. */
function usageOf(value: unknown): ModelRequestUsage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const usage = value as { input_tokens?: number; output_tokens?: number; input_tokens_details?: { cached_tokens?: number } | null };
  return { input: usage.input_tokens, output: usage.output_tokens, cachedInput: usage.input_tokens_details?.cached_tokens };
}

/** Output item types the upstream runs itself, by the name a progress line gives them. */
function ownToolName(item: Record<string, unknown>): string | undefined {
  const type = typeof item.type === 'string' ? item.type : '';
  if (type === 'function_call' || !type.endsWith('_call')) return undefined;
  return typeof item.name === 'string' ? `${type.slice(0, -'_call'.length)} ${item.name}` : type.slice(0, -'_call'.length);
}

/** One request: pushes the reply's text to `onText`, then returns it with the calls asked for and the response's id. */
async function request(
  kit: Kit, profile: AgentProfile, target: UpstreamTarget, settings: FormatSettings, turn: AgentTurn, report: ReportUsage,
  onText: OnText, body: Record<string, unknown>,
): Promise<{ text: string; calls: FunctionCall[]; responseId?: string }> {
  const upstream = await kit.postUpstream(target, body, turn.signal, turn.traceHeaders);
  const max = settings.maxToolCallsPerReply;
  // Function calls by output index; arguments arrive as deltas and complete with the item.
  const calls = new Map<number, FunctionCall>();
  let text = '';
  let responseId: string | undefined;
  const added = (index: number, item: Record<string, unknown>) => {
    if (item.type === 'function_call') {
      if (calls.size >= max) throw upstream.abandon(kit.tooManyCalls(profile.id, max));
      calls.set(index, { id: String(item.call_id ?? `call_${index}`), name: String(item.name ?? ''), arguments: String(item.arguments ?? '') });
      return;
    }
    const own = ownToolName(item);
    if (own) turn.note?.(`${profile.id}: running its own tool ${own}…`);
  };
  const done = (index: number, item: Record<string, unknown>) => {
    const call = calls.get(index);
    if (call && item.type === 'function_call' && typeof item.arguments === 'string') call.arguments = item.arguments;
  };
  const result = () => ({ text, calls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call), ...(responseId ? { responseId } : {}) });
  const idOf = (event: Record<string, unknown>) => {
    responseId = upstreamId(kit, profile.id, (event.response as { id?: unknown } | undefined)?.id) ?? responseId;
  };

  if (!isEventStream(kit, upstream)) {
    // One JSON response: a compatible server that does not stream.
    const response = parseObject(kit, target, await readAll(upstream));
    if (response.error) throw kit.streamError(target, JSON.stringify(response.error));
    responseId = upstreamId(kit, profile.id, response.id);
    report(usageOf(response.usage));
    const output = Array.isArray(response.output) ? (response.output as Array<Record<string, unknown>>) : [];
    for (const [index, item] of output.entries()) {
      added(index, item);
      done(index, item);
      if (item.type === 'message' && Array.isArray(item.content)) {
        for (const part of item.content as Array<Record<string, unknown>>) if (part.type === 'output_text' && typeof part.text === 'string') text += part.text;
      }
    }
    if (!text && calls.size === 0) throw new kit.AgentError(`Agent ${profile.id}: the upstream reply has no output text.`);
    if (text) onText(text);
    return result();
  }
  let completed = false;
  await upstream.readEvents((data) => {
    const event = parseObject(kit, target, data);
    switch (event.type) {
      case 'response.created':
        idOf(event);
        break;
      case 'response.output_text.delta':
        if (typeof event.delta === 'string' && event.delta) {
          text += event.delta;
          onText(event.delta);
        }
        break;
      case 'response.output_item.added':
        added(Number(event.output_index), (event.item ?? {}) as Record<string, unknown>);
        break;
      case 'response.function_call_arguments.delta': {
        const call = calls.get(Number(event.output_index));
        if (call && typeof event.delta === 'string') call.arguments += event.delta;
        break;
      }
      case 'response.output_item.done':
        done(Number(event.output_index), (event.item ?? {}) as Record<string, unknown>);
        break;
      case 'response.completed':
      case 'response.incomplete':
        idOf(event);
        report(usageOf((event.response as { usage?: unknown } | undefined)?.usage));
        return (completed = true);
      case 'response.failed':
        // A failed response may still say what it spent.
        report(usageOf((event.response as { usage?: unknown } | undefined)?.usage));
        throw kit.streamError(target, JSON.stringify((event.response as { error?: unknown } | undefined)?.error ?? event));
      case 'error':
        throw kit.streamError(target, data);
      default:
        // Reasoning (response.reasoning_*), content parts, the upstream's own tools' progress, and events added later.
        break;
    }
  });
  if (completed) return result();
  throw new kit.AgentError(`Agent ${profile.id}: the upstream stream ended before response.completed.`);
}
