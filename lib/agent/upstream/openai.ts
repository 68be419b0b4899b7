/**
 * OpenAI-compatible `/chat/completions` with `stream: true` (OpenAI, Vercel AI Gateway, Ollama, vLLM,
 * LM Studio, OpenRouter…). The upstream is stateless: we send the session's history with each turn.
 */

import { AgentError, type Agent, type AgentProfile, type AgentTurn } from '../types.js';
import { postUpstream, sanitizeCause, type UpstreamResponse, type UpstreamTarget } from './request.js';

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
      const upstream = await postUpstream(target, { model: options.model, messages, stream: true }, turn.signal, turn.traceHeaders);
      const type = upstream.response.headers.get('content-type') ?? '';
      if (!type.includes('text/event-stream')) {
        // Some compatible servers ignore `stream: true` and answer one JSON completion.
        let text = '';
        for await (const chunk of upstream.chunks({ capped: true })) text += chunk;
        yield contentOf(profile.id, parse(profile.id, text, options.apiKey), 'message');
        return;
      }
      let sawDone = false;
      let replyBytes = 0;
      for await (const data of toEvents(upstream, options.maxReplyBytes)) {
        if (data === '[DONE]') {
          sawDone = true;
          break;
        }
        const chunk = parse(profile.id, data, options.apiKey);
        const delta = chunk.choices?.[0]?.delta?.content;
        if (typeof delta !== 'string' || !delta) continue;
        // The reply's text is what the caller receives and what history keeps: it is what the cap counts.
        replyBytes += utf8Length(delta);
        if (replyBytes > options.maxReplyBytes) throw upstream.cut();
        yield delta;
      }
      if (!sawDone) throw new AgentError(`Agent ${profile.id}: the upstream stream ended before [DONE].`);
    },
  };
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

function contentOf(agentId: string, chunk: CompletionChunk, field: 'message'): string {
  const content = chunk.choices?.[0]?.[field]?.content;
  if (typeof content !== 'string') throw new AgentError(`Agent ${agentId}: the upstream reply has no message content.`);
  return content;
}
