/**
 * A reference for the warm rounds (bench/throughput.mjs): the least a `{ fetch }` function behind the same adapter
 * can do and still answer both workloads with agent-mcp's bytes (FLOOR_BODIES, agent-mcp's own replies).
 * tools/list: the JSON-RPC request parsed and checked, the kept list answered under its id. tools/call: the same,
 * the tool and its message checked, a session id no caller can guess (a random UUID), the turn kept in a Map, the
 * demo agent's reply made and serialized.
 *
 * What agent-mcp does on top, and this does not: the request log line, the Origin, Host and Accept checks, a
 * session id signed for its caller (an HMAC), the call's budget and deadline, cancellation when the client goes,
 * the caller's concurrency slot, the store's per-caller accounting and expiry, a reply that can become an SSE stream.
 */

import { randomUUID } from 'node:crypto';

const ours = JSON.parse(process.env.FLOOR_BODIES ?? '{}');
const listText = JSON.stringify(JSON.parse(ours['/tools/list']).result);
// agent-mcp's reply to `hello 0`, around the message: the demo agent's words, byte for byte.
const [before, after] = JSON.parse(ours['/tools/call']).result.structuredContent.reply.split('hello 0');
const headers = { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };
const conversations = new Map();
const MAX_CONVERSATIONS = 100_000;

const reply = (id, result) => new Response(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`, { headers });
const refuse = (id, code, message) => new Response(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }), { status: 400, headers });

export default {
  async fetch(request) {
    if (request.headers.get('mcp-protocol-version') !== '2025-11-25') return refuse(null, -32600, 'Unsupported protocol version.');
    let message;
    try {
      message = JSON.parse(await request.text());
    } catch {
      return refuse(null, -32700, 'Parse error.');
    }
    const { id, method, params } = message ?? {};
    if (message?.jsonrpc !== '2.0' || (typeof id !== 'number' && typeof id !== 'string')) return refuse(null, -32600, 'Invalid request.');
    if (method === 'tools/list') return reply(id, listText);
    const text = params?.arguments?.message;
    if (method !== 'tools/call' || params.name !== 'chat_with_agent' || typeof text !== 'string' || !text) return refuse(id, -32602, 'Invalid params.');
    const session = randomUUID();
    const answer = `${before}${text}${after}`;
    if (conversations.size >= MAX_CONVERSATIONS) conversations.delete(conversations.keys().next().value);
    conversations.set(session, [{ role: 'user', text }, { role: 'assistant', text: answer }]);
    const structuredContent = { agent_id: 'demo', session_id: session, reply: answer };
    return reply(id, JSON.stringify({ content: [{ type: 'text', text: answer }], structuredContent }));
  },
};
