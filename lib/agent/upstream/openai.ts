/**
 * OpenAI-compatible `/chat/completions` with `stream: true` (OpenAI, Vercel AI Gateway, Ollama, vLLM,
 * LM Studio, OpenRouter…). The upstream is stateless: we send the session's history with each turn.
 */

import { AgentError, type Agent, type AgentProfile, type AgentTurn } from '../types.js';
import { postUpstream, type UpstreamTarget } from './request.js';

export interface OpenAiOptions extends Omit<UpstreamTarget, 'url'> {
  /** Base URL (…/v1) or the full …/chat/completions URL. */
  baseUrl: string;
  model: string;
  systemPrompt?: string;
}

export function completionsUrl(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`;
}

interface CompletionChunk {
  choices?: Array<{ delta?: { content?: unknown }; message?: { content?: unknown } }>;
  error?: { message?: string };
}

export function createOpenAiAgent(profile: AgentProfile, options: OpenAiOptions): Agent {
  const target: UpstreamTarget = { ...options, url: completionsUrl(options.baseUrl) };
  return {
    profile,
    keepsHistory: true,
    async *reply(turn: AgentTurn) {
      const messages = [
        ...(options.systemPrompt ? [{ role: 'system', content: options.systemPrompt }] : []),
        ...turn.history,
        { role: 'user', content: turn.message },
      ];
      const upstream = await postUpstream(target, { model: options.model, messages, stream: true }, turn.signal);
      const type = upstream.response.headers.get('content-type') ?? '';
      if (!type.includes('text/event-stream')) {
        // Some compatible servers ignore `stream: true` and answer one JSON completion.
        let text = '';
        for await (const chunk of upstream.chunks()) text += chunk;
        yield contentOf(profile.id, parse(profile.id, text), 'message');
        return;
      }
      let sawDone = false;
      const events = toEvents(upstream.chunks());
      for await (const data of events) {
        if (data === '[DONE]') {
          sawDone = true;
          break;
        }
        const chunk = parse(profile.id, data);
        const delta = chunk.choices?.[0]?.delta?.content;
        if (typeof delta === 'string' && delta) yield delta;
      }
      if (!sawDone) throw new AgentError(`Agent ${profile.id}: the upstream stream ended before [DONE].`);
    },
  };
}

/** SSE `data` payloads from a text stream. */
async function* toEvents(chunks: AsyncIterable<string>): AsyncIterable<string> {
  // Loaded with the first streamed reply rather than on every cold start.
  const { createParser } = await import('eventsource-parser');
  const ready: string[] = [];
  const parser = createParser({ onEvent: (event) => ready.push(event.data) });
  for await (const chunk of chunks) {
    parser.feed(chunk);
    while (ready.length) yield ready.shift()!;
  }
}

function parse(agentId: string, data: string): CompletionChunk {
  try {
    const value = JSON.parse(data) as CompletionChunk;
    if (value.error) throw new AgentError(`Agent ${agentId} reported an error: ${String(value.error.message ?? 'unknown').slice(0, 160)}.`);
    return value;
  } catch (error) {
    if (error instanceof AgentError) throw error;
    throw new AgentError(`Agent ${agentId}: the upstream sent a malformed reply.`);
  }
}

function contentOf(agentId: string, chunk: CompletionChunk, field: 'message'): string {
  const content = chunk.choices?.[0]?.[field]?.content;
  if (typeof content !== 'string') throw new AgentError(`Agent ${agentId}: the upstream reply has no message content.`);
  return content;
}
