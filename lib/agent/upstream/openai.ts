/**
 * OpenAI-compatible `/chat/completions` with `stream: true` (OpenAI, Vercel AI Gateway, Ollama, vLLM,
 * LM Studio, OpenRouter…). The upstream is stateless: we send the session's history with each turn.
 * An agent given tools runs the function-calling loop (tool-loop.ts); the streamed `tool_calls` deltas
 * (index, id, name and argument fragments) are put together here, and count towards the reply cap.
 */

import { metered } from '../budget.js';
import { runToolLoop, type FunctionCall, type FunctionDefinition, type UpstreamMessage } from '../tool-loop.js';
import { AgentError, type Agent, type AgentProfile, type AgentTurn } from '../types.js';
import { postUpstream, sanitizeCause, type UpstreamResponse, type UpstreamTarget } from './request.js';
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
}

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
  const type = upstream.response.headers.get('content-type') ?? '';
  if (!type.includes(EVENT_STREAM)) {
    // Some compatible servers ignore `stream: true` and answer one JSON completion.
    let json = '';
    for await (const chunk of upstream.chunks({ capped: true })) json += chunk;
    const message = parse(agentId, json, options.apiKey).choices?.[0]?.message;
    const calls = new ToolCalls();
    for (const delta of message?.tool_calls ?? []) calls.add(delta);
    if (typeof message?.content !== 'string' && calls.isEmpty()) throw new AgentError(`Agent ${agentId}: the upstream reply has no message content.`);
    const text = typeof message?.content === 'string' ? message.content : '';
    if (text) yield text;
    return { text, calls: calls.done() };
  }
  let sawDone = false;
  let replyBytes = 0;
  let text = '';
  const calls = new ToolCalls();
  for await (const data of toEvents(upstream, options.maxReplyBytes)) {
    if (data === '[DONE]') {
      sawDone = true;
      break;
    }
    const delta = parse(agentId, data, options.apiKey).choices?.[0]?.delta;
    // The reply's text and its calls are what the caller receives and the next request carries: the cap counts them.
    for (const call of delta?.tool_calls ?? []) replyBytes += calls.add(call);
    const content = delta?.content;
    if (typeof content === 'string' && content) {
      replyBytes += utf8Length(content);
      text += content;
    }
    if (replyBytes > options.maxReplyBytes) throw upstream.cut();
    if (typeof content === 'string' && content) yield content;
  }
  if (!sawDone) throw new AgentError(`Agent ${agentId}: the upstream stream ended before [DONE].`);
  return { text, calls: calls.done() };
}

/** Tool calls put together from their deltas, by index (parallel calls interleave). */
class ToolCalls {
  readonly #byIndex = new Map<number, FunctionCall>();

  /** Adds a fragment; returns the bytes it carried. */
  add(delta: ToolCallDelta): number {
    const index = typeof delta.index === 'number' ? delta.index : this.#byIndex.size;
    const call = this.#byIndex.get(index) ?? { id: '', name: '', arguments: '' };
    this.#byIndex.set(index, call);
    if (typeof delta.id === 'string') call.id = delta.id;
    const name = delta.function?.name;
    const args = delta.function?.arguments;
    if (typeof name === 'string') call.name += name;
    if (typeof args === 'string') call.arguments += args;
    return utf8Length(typeof name === 'string' ? name : '') + utf8Length(typeof args === 'string' ? args : '');
  }

  isEmpty(): boolean {
    return this.#byIndex.size === 0;
  }

  /** The calls in index order; one without an id gets one, since each tool message must name its call. */
  done(): FunctionCall[] {
    return [...this.#byIndex.entries()].sort(([a], [b]) => a - b).map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
  }
}

/**
 * SSE `data` payloads of a streamed reply. The parser holds an event until its blank line arrives, so the text
 * fed since the last complete event is bounded by the reply cap too: one endless event cannot grow the buffer.
 */
async function* toEvents(upstream: UpstreamResponse, maxBytes: number): AsyncIterable<string> {
  // Loaded with the first streamed reply rather than on every cold start.
  const { createParser } = await import('eventsource-parser');
  const ready: string[] = [];
  const parser = createParser({ onEvent: (event) => ready.push(event.data) });
  let pending = 0;
  for await (const chunk of upstream.chunks()) {
    parser.feed(chunk);
    pending = ready.length ? 0 : pending + chunk.length;
    if (pending > maxBytes) throw upstream.cut();
    while (ready.length) yield ready.shift()!;
  }
}

/** UTF-8 bytes of a string, without encoding it. */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) i++; // a surrogate pair: 2 code units, 4 bytes
    else if (code >= 0x800) bytes += 2;
    else if (code >= 0x80) bytes += 1;
  }
  return bytes;
}

function parse(agentId: string, data: string, apiKey?: string): CompletionChunk {
  try {
    const value = JSON.parse(data) as CompletionChunk;
    if (value.error) throw new AgentError(`Agent ${agentId} reported an error: ${sanitizeCause(String(value.error.message ?? 'unknown'), apiKey)}.`);
    return value;
  } catch (error) {
    if (error instanceof AgentError) throw error;
    throw new AgentError(`Agent ${agentId}: the upstream sent a malformed reply.`);
  }
}
