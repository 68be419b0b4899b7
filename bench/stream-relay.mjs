/**
 * The raw relay floor of bench/streaming.mjs: node:http alone, the least a server can do to stream a chat call's
 * upstream reply as MCP progress. It reads the JSON-RPC call, POSTs its message to the OpenAI-compatible upstream at
 * AGENT_URL (a keep-alive agent), and for each upstream event parses its JSON and writes one
 * `notifications/progress` SSE event with the delta; at the end, the joined text as the call's result. No checks,
 * no limits, no store, no coalescing: a floor, not a server.
 */

import { Agent, createServer, request } from 'node:http';
import { answerSideChannel } from './side-channel.mjs';

const agent = new Agent({ keepAlive: true, timeout: 4_000 });
const upstream = `${process.env.AGENT_URL}/chat/completions`;
const SSE = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

const event = (message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

function relay(call, res) {
  const token = call.params?._meta?.progressToken;
  const body = JSON.stringify({ model: process.env.AGENT_MODEL, stream: true, messages: [{ role: 'user', content: call.params.arguments.message }] });
  let done = false;
  const req = request(upstream, { method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) } }, (up) => {
    res.writeHead(200, SSE);
    up.setEncoding('utf8');
    let buffered = '';
    let reply = '';
    let progress = 0;
    up.on('data', (text) => {
      const events = (buffered + text).split('\n\n');
      buffered = events.pop();
      for (const raw of events) {
        const data = raw.startsWith('data: ') ? raw.slice(6) : '';
        if (!data || data === '[DONE]') continue;
        const delta = JSON.parse(data).choices[0]?.delta?.content ?? '';
        if (!delta) continue;
        reply += delta;
        if (token !== undefined) res.write(event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message: delta } }));
      }
    });
    up.on('end', () => (done = true) && res.end(event({ jsonrpc: '2.0', id: call.id, result: { content: [{ type: 'text', text: reply }] } })));
  });
  req.on('error', () => res.destroy());
  // A client gone mid-stream ends the upstream's request; a finished one leaves its connection to the pool.
  res.on('close', () => done || req.destroy());
  req.end(body);
}

const server = createServer((req, res) => {
  let text = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (text += chunk));
  req.on('end', () => relay(JSON.parse(text), res));
});
if (process.send) answerSideChannel();
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
