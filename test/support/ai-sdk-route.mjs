/**
 * A real AI SDK route for tests (test-only): the `ai` package's streamText over ai/test's mock model, answered with
 * pipeUIMessageStreamToResponse, on a Node http server, as a Next.js route answers useChat. `ai` 7 needs Node 22,
 * so this runs as a child process under the Node 22 the suite installs (test/support/ai-sdk.ts starts it), with
 * `ai` from the directory in AI_SDK_DIR, the secret its error part holds in ROUTE_SECRET and the body of its HTTP 500
 * in ROUTE_ERROR_BODY. POST /api/chat takes {id, messages}; the last user message picks:
 *   "fault:error" the model fails mid-answer and the stream carries an error part (its text holds a secret) ·
 *   "fault:secrets" HTTP 500, the route failing before it streams · "fault:huge <bytes>" that many bytes of text ·
 *   "fault:failtool" the route's tool throws · "slow …" text pieces 200 ms apart · anything else: a reasoning part
 *   ("secret reasoning"), a call of the route's own `weather` tool (run server-side: "21 C"), then
 *   "Route echo: <text> (history N, weather 21 C)", N the earlier messages.
 * The finish part carries the steps' total usage as message metadata (3 input and 5 output tokens a step), unless the
 * request's body says `sendUsage: false`.
 * GET /__log answers what it received: each request's body and x-route-secret header, and whether the client left
 * before its reply ended; and how many replies were cut short.
 * Prints "listening on http://127.0.0.1:PORT".
 */

import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

const dir = process.env.AI_SDK_DIR;
const { streamText, convertToModelMessages, stepCountIs, tool, jsonSchema } = await import(pathToFileURL(`${dir}/ai/dist/index.js`).href);
const { MockLanguageModelV3, simulateReadableStream } = await import(pathToFileURL(`${dir}/ai/dist/test/index.js`).href);

const ROUTE_SECRET = process.env.ROUTE_SECRET;
const usage = { inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };
const finish = (unified) => ({ type: 'finish', finishReason: { unified, raw: unified }, usage });
const stream = (chunks, chunkDelayInMs = 0) => ({ stream: simulateReadableStream({ chunks: [{ type: 'stream-start', warnings: [] }, ...chunks], chunkDelayInMs }) });
const textParts = (text, size = 8) => [{ type: 'text-start', id: 't1' }, ...(text.match(new RegExp(`.{1,${size}}`, 'gs')) ?? []).map((delta) => ({ type: 'text-delta', id: 't1', delta })), { type: 'text-end', id: 't1' }];

const log = [];
let closed = 0;

function modelFor(text, history) {
  if (text === 'fault:error') {
    return new MockLanguageModelV3({ doStream: stream([...textParts('Partial'), { type: 'error', error: new Error(`model failed at ${ROUTE_SECRET}`) }, finish('error')]) });
  }
  if (text.startsWith('fault:huge ')) return new MockLanguageModelV3({ doStream: stream([...textParts('x'.repeat(Number(text.split(' ')[1])), 1000), finish('stop')]) });
  if (text.startsWith('slow')) return new MockLanguageModelV3({ doStream: stream([...textParts(`Slowly: ${text}`, 4), finish('stop')], 200) });
  const call = (input) => ({ type: 'tool-call', toolCallId: 'call_1', toolName: text === 'fault:failtool' ? 'broken' : 'weather', input });
  return new MockLanguageModelV3({
    doStream: [
      stream([{ type: 'reasoning-start', id: 'r1' }, { type: 'reasoning-delta', id: 'r1', delta: 'secret reasoning' }, { type: 'reasoning-end', id: 'r1' },
        call('{"city":"Paris"}'), finish('tool-calls')]),
      stream([...textParts(`Route echo: ${text} (history ${history}, weather 21 C)`), finish('stop')]),
    ],
  });
}

const tools = {
  weather: tool({ description: 'The weather in a city.', inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } } }), execute: async () => '21 C' }),
  broken: tool({ description: 'Always fails.', inputSchema: jsonSchema({ type: 'object' }), execute: async () => { throw new Error('the tool broke'); } }),
};

const server = createServer(async (req, res) => {
  if (req.method === 'GET' && req.url === '/__log') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ requests: log, closed }));
  }
  let raw = '';
  for await (const chunk of req) raw += chunk;
  const body = JSON.parse(raw);
  const entry = { body, secretHeader: req.headers['x-route-secret'] ?? null, authorization: req.headers.authorization ?? null, closed: false };
  log.push(entry);
  res.on('close', () => {
    if (res.writableEnded) return;
    closed += 1;
    entry.closed = true;
  });
  const last = body.messages.at(-1);
  const text = last.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
  if (text === 'fault:secrets') {
    res.writeHead(500, { 'content-type': 'text/plain' });
    return res.end(process.env.ROUTE_ERROR_BODY);
  }
  const result = streamText({
    model: modelFor(text, body.messages.length - 1),
    messages: await convertToModelMessages(body.messages),
    tools,
    stopWhen: stepCountIs(3),
    // The error reaches the stream as its error part; the route need not print it too.
    onError: () => undefined,
  });
  result.pipeUIMessageStreamToResponse(res, {
    sendReasoning: true,
    onError: (error) => `Route failed: ${error?.message ?? error}`,
    // The one line docs/agents.md shows a route adding to report its usage; a request with `sendUsage: false` leaves it out.
    ...(body.sendUsage === false ? {} : { messageMetadata: ({ part }) => (part.type === 'finish' ? { usage: part.totalUsage } : undefined) }),
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
