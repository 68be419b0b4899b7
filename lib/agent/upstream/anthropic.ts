/**
 * The Anthropic Messages API (`POST …/v1/messages`, `stream: true`; the key in `x-api-key`, `anthropic-version`
 * from the table in index.ts). The upstream is stateless: the session's history goes with each turn. The stream is
 * read by its documented grammar: `message_start`, then per content block `content_block_start`, its
 * `content_block_delta`s and `content_block_stop`, then `message_delta` and `message_stop`; `ping` and unknown
 * events are skipped, an `error` event is the upstream's error (error-text.ts). Text blocks are the reply;
 * `thinking` blocks are never part of it; a server tool the upstream runs itself (`server_tool_use`: web search,
 * code execution…) is a progress line naming it. An agent given tools runs the shared loop (tool-loop.ts) with
 * `tool_use` blocks as calls and `tool_result` blocks as their answers, at most AGENT_MAX_TOOL_CALLS_PER_REPLY
 * calls a reply.
 */

import type { ReportUsage } from '../budget.js';
import type { OnText } from '../push.js';
import type { FunctionCall, FunctionSpec, ToolStep } from '../tool-loop.js';
import type { ModelRequestUsage } from '../../usage/meter.js';
import type { AgentProfile, AgentTurn } from '../types.js';
import type { FormatSettings, LazyFormat } from './settings.js';
import type { Kit } from './kit.js';
import type { UpstreamTarget } from './request.js';
import { argumentsObject, isEventStream, parseObject, readAll } from './wire.js';

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string };
type Message = { role: 'user' | 'assistant'; content: string | Block[] };

/** `…/v1` or the full `…/v1/messages`. */
export function messagesUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/messages') ? trimmed : `${trimmed}/messages`;
}

/** The turn so far in this wire: per step, the assistant's text and `tool_use` blocks, then one user message of `tool_result`s. */
function messagesOf(opening: readonly Message[], steps: readonly ToolStep[]): Message[] {
  const messages = opening.slice();
  for (const step of steps) {
    const said: Block[] = step.text ? [{ type: 'text', text: step.text }] : [];
    for (const call of step.calls) said.push({ type: 'tool_use', id: call.id, name: call.name, input: argumentsObject(call.arguments) });
    messages.push({ role: 'assistant', content: said });
    messages.push({ role: 'user', content: step.calls.map((call, i) => ({ type: 'tool_result', tool_use_id: call.id, content: step.results[i]! })) });
  }
  return messages;
}

/** The Messages API's `usage`: `input_tokens` are those after the last cache breakpoint, the cache's own counted apart. */
interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

const usageFields = (value: unknown): AnthropicUsage | undefined => (typeof value === 'object' && value !== null ? (value as AnthropicUsage) : undefined);

/** `usage` with the counts `delta` gives; a count it leaves null (input tokens in most deltas) keeps its earlier value, as the SDK keeps it. */
function updated(usage: AnthropicUsage | undefined, delta: AnthropicUsage): AnthropicUsage {
  const next: Record<string, unknown> = { ...usage };
  for (const [key, value] of Object.entries(delta)) if (value !== null && value !== undefined) next[key] = value;
  return next as AnthropicUsage;
}

/** A request's usage as the meter takes it (it checks the numbers): input is every input token, cached ones included. */
function usageOf(usage: AnthropicUsage | undefined): ModelRequestUsage | undefined {
  if (!usage) return undefined;
  const read = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  // A part that is not a number makes the sum one too (NaN, or a string), which the meter reads as unknown.
  const input = typeof usage.input_tokens === 'number' ? usage.input_tokens + read + written : undefined;
  return { input, output: usage.output_tokens, cachedInput: read, cacheWrite: written };
}

export const createReply: LazyFormat['createReply'] = (kit, profile, settings) => {
  const target: UpstreamTarget = { ...settings.target, url: messagesUrl(settings.target.url) };
  // Pushed (push.ts): each text delta goes from the socket's data handler to the turn's sink with no promise of its own.
  return (turn: AgentTurn) => kit.pushedReply((onText) => {
    const opening: Message[] = turn.history.map((m) => ({ role: m.role === 'assistant' ? 'assistant' : 'user', content: m.content }));
    opening.push({ role: 'user', content: turn.message });
    const complete = (steps: readonly ToolStep[], functions: FunctionSpec[] | undefined, onText: OnText) => kit.meteredRequest(turn.modelCalls, profile.id, (report) => request(kit, profile, target, settings, turn, report, onText, {
      model: settings.model,
      max_tokens: settings.maxTokens,
      ...(settings.systemPrompt ? { system: settings.systemPrompt } : {}),
      messages: messagesOf(opening, steps),
      stream: true,
      ...(functions ? { tools: functions.map((f) => ({ name: f.name, description: f.description, input_schema: f.parameters })) } : {}),
    }), turn.usage);
    if (!turn.tools) return complete([], undefined, onText);
    return kit.runToolLoop({
      agentId: profile.id, tools: turn.tools, complete, maxSteps: settings.maxToolSteps, maxCallsPerStep: settings.maxToolCalls,
      maxJsonDepth: settings.target.maxJsonDepth, signal: turn.signal,
    }, onText);
  });
};

/** One request: pushes the reply's text to `onText`, then returns it with the `tool_use` calls the model asked for. */
async function request(
  kit: Kit, profile: AgentProfile, target: UpstreamTarget, settings: FormatSettings, turn: AgentTurn, report: ReportUsage,
  onText: OnText, body: Record<string, unknown>,
): Promise<{ text: string; calls: FunctionCall[] }> {
  const upstream = await kit.postUpstream(target, body, turn.signal, turn.traceHeaders);
  const max = settings.maxToolCallsPerReply;
  // Content blocks by index: a tool_use block's input arrives as JSON fragments (input_json_delta).
  const calls = new Map<number, FunctionCall>();
  const addCall = (index: number, block: Record<string, unknown>) => {
    if (calls.size >= max) throw upstream.abandon(kit.tooManyCalls(profile.id, max));
    calls.set(index, { id: String(block.id ?? `toolu_${index}`), name: String(block.name ?? ''), arguments: '' });
  };
  let text = '';
  if (!isEventStream(kit, upstream)) {
    // One JSON message: a compatible server that does not stream.
    const message = parseObject(kit, target, await readAll(upstream));
    if (message.type === 'error') throw kit.streamError(target, JSON.stringify(message));
    report(usageOf(usageFields(message.usage)));
    const content = Array.isArray(message.content) ? (message.content as Array<Record<string, unknown>>) : undefined;
    if (!content) throw new kit.AgentError(`Agent ${profile.id}: the upstream reply has no content.`);
    for (const [index, block] of content.entries()) {
      if (block.type === 'text' && typeof block.text === 'string') text += block.text;
      else if (block.type === 'tool_use') {
        addCall(index, block);
        calls.get(index)!.arguments = JSON.stringify(block.input ?? {});
      } else if (block.type === 'server_tool_use') turn.note?.(`${profile.id}: running its own tool ${String(block.name)}…`);
    }
    if (text) onText(text);
    return { text, calls: [...calls.values()] };
  }
  let stopped = false;
  // message_start's usage, then message_delta's: a delta's counts are running totals that replace the earlier ones.
  let usage: AnthropicUsage | undefined;
  await upstream.readEvents((data) => {
    const event = parseObject(kit, target, data);
    switch (event.type) {
      case 'content_block_start': {
        const block = (event.content_block ?? {}) as Record<string, unknown>;
        const index = Number(event.index);
        if (block.type === 'tool_use') addCall(index, block);
        else if (block.type === 'server_tool_use') turn.note?.(`${profile.id}: running its own tool ${String(block.name)}…`);
        else if (block.type === 'text' && typeof block.text === 'string' && block.text) {
          text += block.text;
          onText(block.text);
        }
        break;
      }
      case 'content_block_delta': {
        const delta = (event.delta ?? {}) as Record<string, unknown>;
        if (delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text) {
          text += delta.text;
          onText(delta.text);
        } else if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
          const call = calls.get(Number(event.index));
          if (call) call.arguments += delta.partial_json;
        }
        // thinking_delta and signature_delta: reasoning, never the reply.
        break;
      }
      case 'message_start':
        usage = usageFields((event.message as { usage?: unknown } | undefined)?.usage);
        report(usageOf(usage));
        break;
      case 'message_delta': {
        const delta = usageFields(event.usage);
        if (delta) report(usageOf(usage = updated(usage, delta)));
        break;
      }
      case 'message_stop':
        return (stopped = true);
      case 'error':
        throw kit.streamError(target, data);
      default:
        // content_block_stop, ping, and events added later.
        break;
    }
  });
  if (!stopped) throw new kit.AgentError(`Agent ${profile.id}: the upstream stream ended before message_stop.`);
  // In the order the model wrote them (block index).
  return { text, calls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call) };
}
