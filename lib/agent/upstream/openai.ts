/**
 * OpenAI-compatible `/chat/completions` with `stream: true` (OpenAI, Vercel AI Gateway, Ollama, vLLM,
 * LM Studio, OpenRouter…). The upstream is stateless: we send the session's history with each turn.
 * An agent given tools runs the function-calling loop (tool-loop.ts), its steps written as `tool_calls` and `tool`
 * messages; the streamed `tool_calls` deltas
 * (index, id, name and argument fragments) are put together here, at most AGENT_MAX_TOOL_CALLS_PER_REPLY distinct
 * calls a reply. Every byte of the reply counts towards the reply cap where it is read (request.ts).
 */

import { meteredRequest, type ReportUsage } from '../budget.js';
import { pushedReply, type OnText } from '../push.js';
import { runToolLoop, tooManyCalls, type FunctionCall, type FunctionSpec, type ToolStep } from '../tool-loop.js';
import { AgentError, type Agent, type AgentProfile, type AgentTurn } from '../types.js';
import { streamError } from './error-text.js';
import type { FormatSettings } from './settings.js';
import { upstreamJson } from './json.js';
import { postUpstream, type UpstreamTarget } from './request.js';
import { EVENT_STREAM } from '../../protocol/headers.js';
import { JoinedText } from '../../joined-text.js';
import type { ModelRequestUsage } from '../../usage/meter.js';

/** The default of AGENT_MAX_TOOL_CALLS_PER_REPLY: well past what a model asks for, far below what hurts. */
export const DEFAULT_MAX_TOOL_CALLS_PER_REPLY = 128;

export function completionsUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`;
}

/** A message of the chat completions wire, tool calls and results included. */
type ChatCompletionMessage =
  | { role: 'system' | 'user' | 'assistant'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> }
  | { role: 'tool'; tool_call_id: string; content: string };

/** The turn so far in this wire: the conversation, then per step the assistant's calls and one `tool` message per call. */
function messagesOf(opening: readonly ChatCompletionMessage[], steps: readonly ToolStep[]): readonly ChatCompletionMessage[] {
  if (steps.length === 0) return opening;
  const messages = opening.slice();
  for (const step of steps) {
    messages.push({
      role: 'assistant',
      content: step.text || null,
      tool_calls: step.calls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })),
    });
    // One push per call, not push(...): a spread passes every element as an argument on the stack.
    step.calls.forEach((call, i) => messages.push({ role: 'tool', tool_call_id: call.id, content: step.results[i]! }));
  }
  return messages;
}

interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface CompletionChunk {
  choices?: Array<{ delta?: { content?: unknown; tool_calls?: ToolCallDelta[] }; message?: { content?: unknown; tool_calls?: ToolCallDelta[] } }>;
  error?: { message?: string };
  usage?: CompletionUsage | null;
}

/** The chat completions wire's `usage`: prompt tokens include the cached ones. */
interface CompletionUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

/** A request's usage as the meter takes it (it checks the numbers); undefined when the upstream sent none. */
function usageOf(usage: CompletionUsage | null | undefined): ModelRequestUsage | undefined {
  if (!usage) return undefined;
  return { input: usage.prompt_tokens, output: usage.completion_tokens, cachedInput: usage.prompt_tokens_details?.cached_tokens };
}

export function createOpenAiAgent(profile: AgentProfile, options: FormatSettings): Agent {
  const target: UpstreamTarget = { ...options.target, url: completionsUrl(options.target.url) };
  return {
    profile,
    keepsHistory: true,
    // Pushed: each chunk goes from the socket's data handler to the turn's sink with no promise of its own (issue 48).
    reply(turn: AgentTurn): AsyncIterable<string> {
      const opening: ChatCompletionMessage[] = [
        ...(options.systemPrompt ? [{ role: 'system' as const, content: options.systemPrompt }] : []),
        ...turn.history,
        { role: 'user', content: turn.message },
      ];
      // Each request spends one of the request's model calls (budget.ts).
      const complete = (steps: readonly ToolStep[], functions: FunctionSpec[] | undefined, onText: OnText) =>
        meteredRequest(turn.modelCalls, profile.id, (report) => {
          // include_usage: the stream's last chunk (empty `choices`) then says what the request spent.
          const body = { model: options.model, messages: messagesOf(opening, steps), stream: true, stream_options: { include_usage: true } };
          return completion(profile.id, target, options, turn, report, functions
            ? { ...body, tools: functions.map((f) => ({ type: 'function', function: { name: f.name, description: f.description, parameters: f.parameters } })) }
            : body, onText);
        }, turn.usage);
      const { tools } = turn;
      if (!tools) return pushedReply((onText) => complete([], undefined, onText));
      return pushedReply((onText) => runToolLoop({
        agentId: profile.id,
        tools,
        complete,
        maxSteps: options.maxToolSteps,
        maxCallsPerStep: options.maxToolCalls,
        maxJsonDepth: options.target.maxJsonDepth,
        signal: turn.signal,
      }, onText));
    },
  };
}

/** One request: pushes the reply's text to `onText` as it is read, then returns it with the tool calls the model asked for. */
async function completion(
  agentId: string, target: UpstreamTarget, options: FormatSettings, turn: AgentTurn, report: ReportUsage, body: Record<string, unknown>,
  onText: OnText,
): Promise<{ text: string; calls: FunctionCall[] }> {
  const upstream = await postUpstream(target, body, turn.signal, turn.traceHeaders);
  const calls = new ToolCalls(options.maxToolCallsPerReply);
  const add = (deltas: unknown) => {
    if (!calls.addAll(deltas)) throw upstream.abandon(tooManyCalls(agentId, calls.max));
  };
  const type = upstream.response.headers.get('content-type') ?? '';
  if (!type.includes(EVENT_STREAM)) {
    // Some compatible servers ignore `stream: true` and answer one JSON completion.
    let json = '';
    for await (const chunk of upstream.chunks()) json += chunk;
    const completion = parse(target, json);
    report(usageOf(completion.usage));
    const message = completion.choices?.[0]?.message;
    add(message?.tool_calls);
    if (typeof message?.content !== 'string' && calls.isEmpty()) throw new AgentError(`Agent ${agentId}: the upstream reply has no message content.`);
    const text = typeof message?.content === 'string' ? message.content : '';
    if (text) onText(text);
    return { text, calls: calls.done() };
  }
  let sawDone = false;
  const text = new JoinedText();
  await upstream.readEvents((data) => {
    if (data === '[DONE]') return (sawDone = true);
    const chunk = parse(target, data);
    if (chunk.usage) report(usageOf(chunk.usage));
    const delta = chunk.choices?.[0]?.delta;
    add(delta?.tool_calls);
    const content = delta?.content;
    if (typeof content === 'string' && content) {
      text.add(content);
      onText(content);
    }
  });
  if (!sawDone) throw new AgentError(`Agent ${agentId}: the upstream stream ended before [DONE].`);
  return { text: text.text, calls: calls.done() };
}

/** Tool calls put together from their deltas, by index (parallel calls interleave), at most `max` of them. */
class ToolCalls {
  /** Made with the first call: most replies ask for none. */
  #calls: Map<number, FunctionCall> | undefined;
  readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  /** Adds a message's `tool_calls` fragments; false when they would make more than `max` calls. */
  addAll(deltas: unknown): boolean {
    if (!Array.isArray(deltas)) return true;
    for (const delta of deltas as ToolCallDelta[]) if (!this.#add(delta ?? {})) return false;
    return true;
  }

  #add(delta: ToolCallDelta): boolean {
    const byIndex = (this.#calls ??= new Map());
    const index = typeof delta.index === 'number' ? delta.index : byIndex.size;
    let call = byIndex.get(index);
    if (!call) {
      if (byIndex.size >= this.max) return false;
      byIndex.set(index, call = { id: '', name: '', arguments: '' });
    }
    if (typeof delta.id === 'string') call.id = delta.id;
    const name = delta.function?.name;
    const args = delta.function?.arguments;
    if (typeof name === 'string') call.name += name;
    if (typeof args === 'string') call.arguments += args;
    return true;
  }

  isEmpty(): boolean {
    return !this.#calls?.size;
  }

  /** The calls in index order; one without an id gets one, since each tool message must name its call. */
  done(): FunctionCall[] {
    if (!this.#calls) return [];
    return [...this.#calls.entries()].sort(([a], [b]) => a - b).map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
  }
}

function parse(target: UpstreamTarget, data: string): CompletionChunk {
  const value = upstreamJson(target, data);
  if (typeof value !== 'object' || value === null) throw new AgentError(`Agent ${target.agentId}: the upstream sent a malformed reply.`, 'upstream_malformed_reply');
  if ((value as CompletionChunk).error) throw streamError(target, data);
  return value as CompletionChunk;
}
