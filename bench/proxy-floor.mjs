/**
 * The proxy floor: the least a Web-standard `{ fetch }` function can do to answer a chat call from an upstream. It
 * reads the JSON-RPC call, POSTs its message to the OpenAI-compatible upstream at AGENT_URL with node:http (a
 * keep-alive agent, as lib/agent/upstream/transport.ts makes one), reads the streamed reply to its end, joins the
 * deltas and answers one JSON-RPC result. Served behind the same adapter as agent-mcp (bench/serve-built.mjs), it is
 * what the extra HTTP hop of any proxy costs on this machine: agent-mcp's overhead over it is agent-mcp's own.
 * No checks, no store, no conversation: a floor, not a server.
 */

import { keepAliveAgent, postWithHttp } from './http-post.mjs';

const agent = keepAliveAgent();
const url = `${process.env.AGENT_URL}/chat/completions`;
const headers = { 'content-type': 'application/json', accept: 'text/event-stream' };

/** The text of an OpenAI chat-completions stream: each `data:` event's delta, in order. */
function deltas(stream) {
  return stream.split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? '')
    .join('');
}

export default {
  async fetch(request) {
    const call = await request.json();
    const reply = await postWithHttp(agent, url, headers, JSON.stringify({ model: process.env.AGENT_MODEL, stream: true, messages: [{ role: 'user', content: call.params.arguments.message }] }));
    const result = { content: [{ type: 'text', text: deltas(reply) }] };
    return new Response(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }), { headers: { 'content-type': 'application/json' } });
  },
};
