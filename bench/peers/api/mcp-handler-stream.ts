/**
 * The streaming peer on `mcp-handler` 2.4.0 (bench/streaming.mjs): the same `chat_with_agent` tool, answered by
 * the OpenAI-compatible upstream at AGENT_URL as a developer would write it on that package: fetch, the stream read
 * with eventsource-parser, one `notifications/progress` per upstream chunk when the call has a progress token,
 * the joined text as the reply.
 */

import { createParser } from 'eventsource-parser';
import { createMcpHandler } from 'mcp-handler';
import { CONFIG, NAME } from '../lib/chat-tool.js';

/** What the tool reads of its call's context (the SDK's `ctx.mcpReq`). */
interface Call {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  notify(notification: { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; message?: string } }): Promise<void>;
}

async function chat({ message, session_id }: { message: string; session_id?: string }, call: Call) {
  const response = await fetch(`${process.env.AGENT_URL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ model: process.env.AGENT_MODEL, stream: true, messages: [{ role: 'user', content: message }] }),
    signal: call.signal,
  });
  const token = call._meta?.progressToken;
  let reply = '';
  let progress = 0;
  const parser = createParser({
    onEvent: (event) => {
      if (event.data === '[DONE]') return;
      const text: string = JSON.parse(event.data).choices?.[0]?.delta?.content ?? '';
      if (!text) return;
      reply += text;
      if (token !== undefined) void call.notify({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message: text } });
    },
  });
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) parser.feed(decoder.decode(read.value, { stream: true }));
  const structuredContent = { agent_id: 'demo', session_id: session_id ?? crypto.randomUUID(), reply };
  return { content: [{ type: 'text' as const, text: reply }], structuredContent };
}

const handler = createMcpHandler((server) => {
  server.registerTool(NAME, CONFIG, async (args, ctx) => chat(args, ctx.mcpReq as unknown as Call));
}, { serverInfo: { name: 'peer-mcp-handler-stream', version: '0.0.0' } });

export default { fetch: handler };
