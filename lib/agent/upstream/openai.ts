/**
 * OpenAI-compatible `/chat/completions` with `stream: true` (OpenAI, Vercel AI Gateway, Ollama, vLLM,
 * LM Studio, OpenRouter…). The upstream is stateless: we send the session's history with each turn.
 * An agent given tools runs the function-calling loop (tool-loop.ts); the streamed `tool_calls` deltas
 * (index, id, name and argument fragments) are put together here, at most AGENT_MAX_TOOL_CALLS_PER_REPLY distinct
 * calls a reply. Every byte of the reply counts towards the reply cap where it is read (request.ts).
 */

import { createCountedWarning } from '../../warn.js';
import { metered } from '../budget.js';
import { runToolLoop, type FunctionCall, type FunctionDefinition, type UpstreamMessage } from '../tool-loop.js';
import { AgentError, type Agent, type AgentProfile, type AgentTurn } from '../types.js';
import { streamError } from './error-text.js';
import { postUpstream, type UpstreamTarget } from './request.js';
import { sseData } from './sse.js';
import { EVENT_STREAM } from '../../protocol/headers.js';

export interface OpenAiOptions extends Omit<UpstreamTarget, 'url'> {
  /** Base URL (…/v1) or the full …/chat/completions URL. */
  baseUrl: string;
  model: string;
  systemPrompt?: string;
  /** Rounds of tool calls in one turn (AGENT_MAX_TOOL_STEPS or the agent's maxToolSteps). */
  maxToolSteps?: number;
  /** Tool calls run per round (AGENT_MAX_TOOL_CALLS). */
  maxToolCalls?: number;
  /** Distinct tool calls one reply may ask for; past it the turn fails (AGENT_MAX_TOOL_CALLS_PER_REPLY). */
  maxToolCallsPerReply?: number;
}

/** The default of AGENT_MAX_TOOL_CALLS_PER_REPLY: well past what a model asks for, far below what hurts. */
export const DEFAULT_MAX_TOOL_CALLS_PER_REPLY = 128;

const callsLimit = createCountedWarning((agent, count) =>
  `stopped ${count} agent repl${count === 1 ? 'y' : 'ies'} asking for more tool calls than AGENT_MAX_TOOL_CALLS_PER_REPLY (latest: agent ${agent})`);

export function completionsUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`;
}

interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface CompletionChunk {
  choices?: Array<{ delta?: { content?: unknown; tool_calls?: ToolCallDelta[] }; message?: { content?: unknown; tool_calls?: ToolCallDelta[] } }>;
  error?: { message?: string };
}

export function createOpenAiAgent(profile: AgentProfile, options: OpenAiOptions): Agent {
  const target: UpstreamTarget = { ...options, url: completionsUrl(options.baseUrl) };
  return {
    profile,
    keepsHistory: true,
    async *reply(turn: AgentTurn) {
      const messages: UpstreamMessage[] = [
        ...(options.systemPrompt ? [{ role: 'system' as const, content: options.systemPrompt }] : []),
        ...turn.history,
        { role: 'user', content: turn.message },
      ];
      // Each request spends one of the request's model calls (budget.ts).
      const complete = (conversation: UpstreamMessage[], functions?: FunctionDefinition[]) => metered(turn.modelCalls, profile.id, () =>
        completion(profile.id, target, options, turn, functions ? { model: options.model, messages: conversation, stream: true, tools: functions }
          : { model: options.model, messages: conversation, stream: true }));
      if (!turn.tools) {
        yield* complete(messages);
        return;
      }
      yield* runToolLoop({
        agentId: profile.id,
        tools: turn.tools,
        messages,
        complete,
        maxSteps: options.maxToolSteps ?? 8,
        maxCallsPerStep: options.maxToolCalls ?? 16,
        signal: turn.signal,
      });
    },
  };
}

/** One request: streams the reply's text, then returns it with the tool calls the model asked for. */
async function* completion(
  agentId: string, target: UpstreamTarget, options: OpenAiOptions, turn: AgentTurn, body: Record<string, unknown>,
): AsyncGenerator<string, { text: string; calls: FunctionCall[] }> {
  const upstream = await postUpstream(target, body, turn.signal, turn.traceHeaders);
  const calls = new ToolCalls(options.maxToolCallsPerReply ?? DEFAULT_MAX_TOOL_CALLS_PER_REPLY);
  const add = (deltas: unknown) => {
    if (calls.addAll(deltas)) return;
    callsLimit.note(agentId);
    throw upstream.abandon(new AgentError(`Agent ${agentId} asked for more than ${calls.max} tool calls in one reply `
      + `(AGENT_MAX_TOOL_CALLS_PER_REPLY is ${calls.max}); the turn was stopped.`));
  };
  const type = upstream.response.headers.get('content-type') ?? '';
  if (!type.includes(EVENT_STREAM)) {
    // Some compatible servers ignore `stream: true` and answer one JSON completion.
    let json = '';
    for await (const chunk of upstream.chunks()) json += chunk;
    const message = parse(target, json).choices?.[0]?.message;
    add(message?.tool_calls);
    if (typeof message?.content !== 'string' && calls.isEmpty()) throw new AgentError(`Agent ${agentId}: the upstream reply has no message content.`);
    const text = typeof message?.content === 'string' ? message.content : '';
    if (text) yield text;
    return { text, calls: calls.done() };
  }
  let sawDone = false;
  let text = '';
  for await (const data of sseData(upstream.chunks())) {
    if (data === '[DONE]') {
      sawDone = true;
      break;
    }
    const delta = parse(target, data).choices?.[0]?.delta;
    add(delta?.tool_calls);
    const content = delta?.content;
    if (typeof content === 'string' && content) {
      text += content;
      yield content;
    }
  }
  if (!sawDone) throw new AgentError(`Agent ${agentId}: the upstream stream ended before [DONE].`);
  return { text, calls: calls.done() };
}

/** Tool calls put together from their deltas, by index (parallel calls interleave), at most `max` of them. */
class ToolCalls {
  readonly #byIndex = new Map<number, FunctionCall>();
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
    const index = typeof delta.index === 'number' ? delta.index : this.#byIndex.size;
    let call = this.#byIndex.get(index);
    if (!call) {
      if (this.#byIndex.size >= this.max) return false;
      this.#byIndex.set(index, call = { id: '', name: '', arguments: '' });
    }
    if (typeof delta.id === 'string') call.id = delta.id;
    const name = delta.function?.name;
    const args = delta.function?.arguments;
    if (typeof name === 'string') call.name += name;
    if (typeof args === 'string') call.arguments += args;
    return true;
  }

  isEmpty(): boolean {
    return this.#byIndex.size === 0;
  }

  /** The calls in index order; one without an id gets one, since each tool message must name its call. */
  done(): FunctionCall[] {
    return [...this.#byIndex.entries()].sort(([a], [b]) => a - b).map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
  }
}

function parse(target: UpstreamTarget, data: string): CompletionChunk {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch { /* answered below */ }
  if (typeof value !== 'object' || value === null) throw new AgentError(`Agent ${target.agentId}: the upstream sent a malformed reply.`, 'upstream_malformed_reply');
  if ((value as CompletionChunk).error) throw streamError(target, data);
  return value as CompletionChunk;
}
