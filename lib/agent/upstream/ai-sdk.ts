/**
 * An AI SDK route (`streamText(…).toUIMessageStreamResponse()`, what `useChat` talks to): POST `{id, messages,
 * trigger}` with the conversation as UI messages (the route keeps no history; ours comes from the store) and read
 * the UI message stream, SSE of typed parts marked by `x-vercel-ai-ui-message-stream`, ended by `[DONE]`.
 * `text-delta` parts are the reply; reasoning parts never are; the route's own tools (`tool-input-available`,
 * `tool-output-error`) are progress lines naming them; an `error` part is the upstream's error (error-text.ts) and
 * `abort` ends the turn. A route answering `toTextStreamResponse()` (plain text) is read as the reply itself.
 * The AI SDK's own reader needs Node 22 and is not used: eventsource-parser (sse.ts) reads the documented parts.
 * `id` is our id for the conversation (derived per caller, never a client's string); `body` adds fields to each request.
 */

import type { AgentTurn } from '../types.js';
import type { ModelRequestUsage } from '../../usage/meter.js';
import type { LazyFormat } from './settings.js';
import { parseObject } from './wire.js';

/** The header a UI message stream carries, and the SSE data that ends one. */
const UI_STREAM_HEADER = 'x-vercel-ai-ui-message-stream';
const DONE = '[DONE]';
/** Tool names remembered per reply, to name a failing call; more calls than this are named "a tool". */
const NAMED_CALLS = 256;

interface UiMessage {
  id: string;
  role: 'user' | 'assistant';
  parts: Array<{ type: 'text'; text: string }>;
}

/**
 * The usage a route sends as message metadata: `messageMetadata: ({ part }) => part.type === 'finish' ? { usage:
 * part.totalUsage } : undefined` (docs/agents.md). `totalUsage` is the AI SDK's LanguageModelUsage, summed over the
 * route's steps; `inputTokenDetails` (AI SDK 6 and later) or `cachedInputTokens` (AI SDK 5) say the cached part.
 */
function usageOf(metadata: unknown): ModelRequestUsage | undefined {
  const usage = (metadata as { usage?: unknown } | null | undefined)?.usage;
  if (typeof usage !== 'object' || usage === null) return undefined;
  const read = usage as { inputTokens?: number; outputTokens?: number; cachedInputTokens?: number; inputTokenDetails?: { cacheReadTokens?: number; cacheWriteTokens?: number } };
  return {
    input: read.inputTokens,
    output: read.outputTokens,
    cachedInput: read.inputTokenDetails?.cacheReadTokens ?? read.cachedInputTokens,
    cacheWrite: read.inputTokenDetails?.cacheWriteTokens,
  };
}

export const createReply: LazyFormat['createReply'] = (kit, profile, settings) => {
  const { target } = settings;
  // Pushed (push.ts): each text delta goes from the socket's data handler to the turn's sink with no promise of its own.
  return (turn: AgentTurn) => kit.pushedReply((onText) => {
    const messages: UiMessage[] = turn.history.map((m, i) => ({ id: `m${i + 1}`, role: m.role === 'assistant' ? 'assistant' : 'user', parts: [{ type: 'text', text: m.content }] }));
    messages.push({ id: `m${messages.length + 1}`, role: 'user', parts: [{ type: 'text', text: turn.message }] });
    return kit.meteredRequest(turn.modelCalls, profile.id, async (report) => {
      const upstream = await kit.postUpstream(target, { ...settings.body, id: turn.sessionId, messages, trigger: 'submit-message' }, turn.signal, turn.traceHeaders);
      const type = upstream.response.headers.get('content-type') ?? '';
      if (!type.includes(kit.EVENT_STREAM)) {
        // A reply this adapter will not read is abandoned, which closes its request at once.
        if (!type.startsWith('text/plain')) throw upstream.abandon(new kit.AgentError(`Agent ${profile.id}: the upstream answered neither a UI message stream nor text.`));
        for await (const chunk of upstream.chunks()) if (chunk) onText(chunk);
        return;
      }
      if (!upstream.response.headers.has(UI_STREAM_HEADER)) throw upstream.abandon(new kit.AgentError(`Agent ${profile.id}: the upstream's stream is not an AI SDK UI message stream.`));
      const toolNames = new Map<string, string>();
      let ended = false;
      await upstream.readEvents((data) => {
        if (data === DONE) return (ended = true);
        const part = parseObject(kit, target, data);
        switch (part.type) {
          case 'text-delta':
            if (typeof part.delta === 'string' && part.delta) onText(part.delta);
            break;
          case 'tool-input-available': {
            const name = String(part.toolName);
            if (toolNames.size < NAMED_CALLS) toolNames.set(String(part.toolCallId), name);
            turn.note?.(`${profile.id}: running its own tool ${name}…`);
            break;
          }
          case 'tool-output-error':
          case 'tool-input-error':
            turn.note?.(`${profile.id}: its tool ${toolNames.get(String(part.toolCallId)) ?? (typeof part.toolName === 'string' ? part.toolName : 'a tool')} failed`);
            break;
          case 'error':
            throw kit.streamError(target, typeof part.errorText === 'string' ? part.errorText : data);
          case 'abort':
            throw new kit.AgentError(`Agent ${profile.id}: the upstream stopped its reply.`);
          case 'finish':
            if (part.messageMetadata !== undefined) report(usageOf(part.messageMetadata));
            ended = true;
            break;
          case 'message-metadata':
            report(usageOf(part.messageMetadata));
            break;
          default:
            // start, steps, text and reasoning bounds, reasoning deltas, tool input deltas and outputs, sources, files,
            // data and metadata parts, and parts added later.
            break;
        }
      });
      if (!ended) throw new kit.AgentError(`Agent ${profile.id}: the upstream stream ended before it finished.`);
    }, turn.usage);
  });
};
