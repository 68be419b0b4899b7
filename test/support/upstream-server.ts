/**
 * A real local upstream agent for tests (test-only): speaks OpenAI streaming SSE at /v1/chat/completions
 * and the platform JSON contract at /platform/chat. The last user message picks a fault mode:
 *   "fault:slow …" chunks 150 ms apart · "fault:500" HTTP 500 · "fault:garbage" a malformed body ·
 *   "fault:hang" never answers · "fault:drop" closes the connection mid-stream · "fault:empty" no text ·
 *   "fault:redirect" a 308 to the same path · "late-end …" ends the body 20 ms after [DONE] ·
 *   "fault:huge <bytes>" a reply of that many bytes of text, streamed as fast as the client reads ·
 *   "fault:endless-event" one SSE event that never ends · "fault:leak" HTTP 500 whose body repeats the caller's
 *   key and an internal URL · "fault:huge-error" HTTP 500 with a 20 MB body · "fault:wait <ms> …" waits that long,
 *   then echoes (on both formats) · "fault:pace <ms> …" echoes in 8-character pieces that many ms apart (an agent that writes for minutes) ·
 *   "fault:secrets" HTTP 500 whose body hides the caller's key split in two and base64-encoded, an
 *   internal host, a private address and a password (secretsText in upstream.ts) · "fault:stream-secrets" the same text as an
 *   error event inside a 200 stream.
 * OpenAI only: "fault:tool-flood <n>" n tool-call events with distinct indexes and nothing else ·
 *   "fault:empty-events <bytes>" that many bytes of `data: {"choices":[]}` events, then a short answer ·
 *   "fault:huge-json <bytes>" a non-streamed JSON completion whose content is that many bytes.
 * "fault:no-usage …" echoes without the usage chunk `stream_options.include_usage` asks for (completionUsage below).
 * "script {json}" makes it a scripted model that calls tools (scriptedModel below).
 * Otherwise it echoes, naming how many history messages it received. GET /__log returns what it saw:
 * each request (path, authorization, traceparent, body, the client's port) and each connection the client closed before the
 * reply ended, with the bytes of body written to it by then (the hostile streams above count theirs).
 * Run: node --import tsx test/support/upstream-server.ts  (prints "listening on http://127.0.0.1:PORT").
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { secretsText } from './upstream.js';

interface LogEntry {
  at: number;
  kind: 'request' | 'closed';
  path: string;
  authorization?: string;
  /** The W3C trace context header the request carried, if any. */
  traceparent?: string;
  body?: any;
  /** The client's port: requests with the same port came over one connection. */
  port?: number;
  /** On `closed`: bytes of body handed to the socket before the client went away (streams written by writeAll). */
  written?: number;
  /** Requests in progress when this one arrived, itself included: the most at once is the largest. */
  inFlight?: number;
}

const log: LogEntry[] = [];
/** Bytes of body each response has written through writeAll. */
const written = new WeakMap<ServerResponse, number>();
let inFlight = 0;
const platformSessions = new Map<string, number>();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk) => { text += chunk; });
    req.on('end', () => resolve(text));
  });
}

function lastUserMessage(body: any): string {
  // Also an AI SDK UI message's text parts: an ai-sdk agent pointed here by mistake still picks its fault mode.
  const messages: Array<{ role: string; content?: string; parts?: Array<{ text?: string }> }> = body?.messages ?? [];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return last?.content ?? last?.parts?.map((part) => part.text ?? '').join('') ?? '';
}

/** Until the socket takes more, or is gone (listeners removed either way, so none pile up). */
const drained = (res: ServerResponse) => new Promise<void>((resolve) => {
  const done = () => {
    res.off('drain', done);
    res.off('close', done);
    resolve();
  };
  res.on('drain', done);
  res.on('close', done);
});

const CHUNK = 64 * 1024;

/** Writes each piece `next` gives until it gives none, waiting for the client to read; stops when it goes away. */
async function writeAll(res: ServerResponse, next: () => string | undefined): Promise<void> {
  for (let piece = next(); piece !== undefined && !res.destroyed; piece = next()) {
    written.set(res, (written.get(res) ?? 0) + Buffer.byteLength(piece));
    if (!res.write(piece)) await drained(res);
  }
}

/** Writes `total` bytes made of `piece(n)` strings (about n bytes each, in 64 KB writes). */
function writeMany(res: ServerResponse, total: number, piece: (bytes: number) => string): Promise<void> {
  let sent = 0;
  return writeAll(res, () => {
    if (sent >= total) return undefined;
    const size = Math.min(CHUNK, total - sent);
    sent += size;
    return piece(size);
  });
}

/** Writes `count` SSE events, `event(i)` each, batched into 64 KB writes. */
function writeEvents(res: ServerResponse, count: number, event: (i: number) => unknown): Promise<void> {
  let i = 0;
  return writeAll(res, () => {
    if (i >= count) return undefined;
    let batch = '';
    while (i < count && batch.length < CHUNK) batch += `data: ${JSON.stringify(event(i++))}\n\n`;
    return batch;
  });
}

/** The key the caller sent (agent-mcp's configured key for this agent). */
const callerKey = (req: IncomingMessage) => String(req.headers.authorization ?? '').replace(/^Bearer /, '');

/** The faults shared by both formats: error bodies that carry secrets or never end. */
function errorFault(req: IncomingMessage, res: ServerResponse, message: string): boolean | Promise<void> {
  if (message.startsWith('fault:leak')) {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `Invalid API key ${callerKey(req)} `
      + 'for deployment http://internal.example/x?sig=abc (see https://admin.internal.example:8443/keys )' } }));
    return true;
  }
  if (message.startsWith('fault:secrets')) {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: secretsText(callerKey(req)).text } }));
    return true;
  }
  if (message.startsWith('fault:huge-error')) {
    res.writeHead(500, { 'content-type': 'text/plain' });
    return writeMany(res, 20 * 1024 * 1024, (n) => 'e'.repeat(n)).then(() => void res.end());
  }
  if (message.startsWith('fault:error-pace ')) {
    res.writeHead(500, { 'content-type': 'text/plain' });
    return (async () => {
      for (let i = 0; i < 1024 && !res.destroyed; i++) {
        res.write('overload');
        await sleep(sizeOf(message));
      }
      res.end();
    })();
  }
  return false;
}

/** The number after a fault's name: "fault:huge 1000" → 1000. */
const sizeOf = (message: string) => Number(/^fault:\S+ (\d+)/.exec(message)?.[1] ?? 0);

interface ScriptCall {
  /** A function name as offered, or "*agent": the first offered function whose name starts with agent__. */
  name: string;
  /** An object (sent as JSON), raw text (sent as is, valid JSON or not), or "$message": {message: <this script>}. */
  arguments?: unknown;
}

interface Script {
  /** The calls of each step; a step whose calls name nothing offered is skipped. */
  steps?: ScriptCall[][];
  /** Calls made at every step, never answering (a model that does not stop). */
  forever?: ScriptCall[];
  /** The answer once the steps are done; the tool results it received are appended in brackets. */
  final?: string;
  /** How long each reply waits before it starts (a slow model). */
  delayMs?: number;
}

const sse = (res: ServerResponse, value: unknown) => res.write(`data: ${JSON.stringify(value)}\n\n`);

/**
 * The chunk a request asking `stream_options.include_usage` gets last before [DONE], as the API sends it: empty
 * `choices` and the request's `usage`, here 100 prompt tokens per message sent (all but the last cached) and 20
 * completion tokens. A last user message starting "fault:no-usage" gets none, as from a server that ignores the option.
 */
function completionUsage(body: any) {
  const sent = body.messages?.length ?? 0;
  return { prompt_tokens: 100 * sent, completion_tokens: 20, total_tokens: 100 * sent + 20, prompt_tokens_details: { cached_tokens: 100 * Math.max(sent - 1, 0) } };
}

function endCompletion(res: ServerResponse, body: any, message: string) {
  if (body.stream_options?.include_usage === true && !message.startsWith('fault:no-usage')) {
    sse(res, { id: 'chatcmpl-usage', object: 'chat.completion.chunk', created: 1_800_000_000, model: body.model, choices: [], usage: completionUsage(body) });
  }
  res.end('data: [DONE]\n\n');
}

/**
 * A scripted OpenAI-compatible model (a fake: it stands in for a hosted LLM). It streams `tool_calls` as the
 * real API does: deltas carrying index, id and name first, then the arguments in small fragments, parallel
 * calls interleaved, `finish_reason: "tool_calls"`; once its steps are done it answers with text that
 * names its model and quotes every tool result it was sent since the user's message.
 */
async function scriptedModel(res: ServerResponse, body: any, message: string) {
  const script = JSON.parse(message.slice('script '.length)) as Script;
  const messages: any[] = body.messages ?? [];
  const since = messages.slice(messages.map((m) => m.role).lastIndexOf('user') + 1);
  const step = since.filter((m) => m.role === 'assistant' && m.tool_calls).length;
  const offered: string[] = (body.tools ?? []).map((t: any) => t.function.name);
  const planned = script.forever ?? script.steps?.[step] ?? [];
  if (script.delayMs) await sleep(script.delayMs);
  const calls = planned
    .map((c) => ({ ...c, name: c.name === '*agent' ? offered.find((n) => n.startsWith('agent__')) : c.name }))
    .filter((c): c is ScriptCall => c.name !== undefined)
    .map((c, i) => ({
      id: `call_${step}_${i}`,
      name: c.name,
      arguments: c.arguments === '$message' ? JSON.stringify({ message }) : typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
    }));
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if (calls.length > 0) {
    calls.forEach((call, index) => sse(res, { choices: [{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] } }] }));
    // Short arguments in 5-character fragments, long ones in at most about 100: each round waits a timer's gap, and
    // 30 KB of arguments in 5-character fragments took 9 s idle (more than a test's 20 s under load).
    const fragments = calls.map((call) => call.arguments.match(new RegExp(`.{1,${Math.max(5, Math.ceil(call.arguments.length / 100))}}`, 'gs')) ?? []);
    for (let f = 0; fragments.some((list) => f < list.length); f++) {
      fragments.forEach((list, index) => f < list.length && sse(res, { choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: list[f] } }] } }] }));
      await sleep(1);
    }
    sse(res, { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
    return endCompletion(res, body, message);
  }
  const results = since.filter((m) => m.role === 'tool').map((m) => m.content);
  const text = `${body.model}: ${script.final ?? 'done'}${results.length ? ` [${results.join(' | ')}]` : ''}`;
  for (const piece of text.match(/.{1,16}/gs) ?? []) sse(res, { choices: [{ index: 0, delta: { content: piece } }] });
  sse(res, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  endCompletion(res, body, message);
}

async function openai(req: IncomingMessage, res: ServerResponse, body: any) {
  const message = lastUserMessage(body);
  if (message.startsWith('script ')) return scriptedModel(res, body, message);
  const history = (body.messages as unknown[]).length - 1;
  const fault = errorFault(req, res, message);
  if (fault) return fault;
  if (message.startsWith('fault:huge ')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // Each event carries ~1 KB of text; the whole reply is `hugeSize` bytes of SSE.
    const event = `data: ${JSON.stringify({ choices: [{ delta: { content: 'x'.repeat(1000) } }] })}\n\n`;
    const events = (n: number) => event.repeat(Math.max(1, Math.floor(n / event.length)));
    await writeMany(res, sizeOf(message), events);
    return res.end('data: [DONE]\n\n');
  }
  if (message.startsWith('fault:tool-flood ')) {
    // Tool-call deltas that carry nothing but a new index: no name, no arguments, no text.
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    await writeEvents(res, sizeOf(message), (index) => ({ choices: [{ delta: { tool_calls: [{ index }] } }] }));
    return res.end('data: [DONE]\n\n');
  }
  if (message.startsWith('fault:empty-events ')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const event = 'data: {"choices":[]}\n\n';
    await writeMany(res, sizeOf(message), (n) => event.repeat(Math.max(1, Math.floor(n / event.length))));
    sse(res, { choices: [{ delta: { content: 'made it through' } }] });
    return res.end('data: [DONE]\n\n');
  }
  if (message.startsWith('fault:huge-json ')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"choices":[{"message":{"role":"assistant","content":"');
    await writeMany(res, sizeOf(message), (n) => 'j'.repeat(n));
    return res.end('"}}]}');
  }
  if (message.startsWith('fault:stream-secrets')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    sse(res, { choices: [{ delta: { content: 'Hel' } }] });
    sse(res, { error: { message: secretsText(callerKey(req)).text } });
    return res.end('data: [DONE]\n\n');
  }
  if (message.startsWith('fault:endless-event')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: ');
    await writeMany(res, 50 * 1024 * 1024, (n) => 'y'.repeat(n));
    return res.end('\n\n');
  }
  if (message.startsWith('fault:500')) {
    res.writeHead(500, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ error: { message: 'The model is overloaded, try later.' } }));
  }
  if (message.startsWith('fault:hang')) return;
  if (message.startsWith('fault:wait ')) await sleep(Number(message.split(' ')[1]) || 0);
  if (message.startsWith('fault:redirect')) return res.writeHead(308, { location: req.url }).end();
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if (message.startsWith('fault:garbage')) return res.end('data: {this is not json\n\n');
  const text = message.startsWith('fault:empty') ? '' : `Echo: ${message} (history ${history})`;
  const pieces = text.match(/.{1,8}/gs) ?? [];
  const delay = message.startsWith('fault:slow') ? 150 : message.startsWith('fault:pace ') ? sizeOf(message) : 2;
  for (const [i, piece] of pieces.entries()) {
    if (res.destroyed) return;
    if (message.startsWith('fault:drop') && i === 2) return res.socket?.destroy();
    res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: piece } }] })}\n\n`);
    await sleep(delay);
  }
  if (!message.startsWith('late-end')) return endCompletion(res, body, message);
  res.write('data: [DONE]\n\n');
  await sleep(20);
  res.end();
}

async function platform(req: IncomingMessage, res: ServerResponse, body: any) {
  const message = lastUserMessage(body);
  const fault = errorFault(req, res, message);
  if (fault) return fault;
  if (message.startsWith('fault:huge ')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"message":{"role":"assistant","content":"');
    await writeMany(res, sizeOf(message), (n) => 'z'.repeat(n));
    return res.end('"}}');
  }
  if (message.startsWith('fault:500')) {
    res.writeHead(502, { 'content-type': 'text/plain' });
    return res.end('bad gateway upstream');
  }
  if (message.startsWith('fault:garbage')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ unexpected: true }));
  }
  if (message.startsWith('fault:wait ')) await sleep(sizeOf(message));
  const turn = (platformSessions.get(body.session_id) ?? 0) + 1;
  platformSessions.set(body.session_id, turn);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ message: { role: 'assistant', content: `Platform ${body.agent} turn ${turn}: ${message}` } }));
}

const server = createServer(async (req, res) => {
  const path = req.url ?? '/';
  if (req.method === 'GET' && path === '/__log') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify(log));
  }
  inFlight += 1;
  const body = JSON.parse((await readBody(req)) || '{}');
  log.push({ at: Date.now(), kind: 'request', path, authorization: req.headers.authorization, traceparent: req.headers.traceparent as string | undefined, body, port: req.socket.remotePort, inFlight });
  res.on('close', () => {
    inFlight -= 1;
    if (!res.writableEnded) log.push({ at: Date.now(), kind: 'closed', path, body, written: written.get(res) ?? 0 });
  });
  if (path === '/v1/chat/completions') return openai(req, res, body);
  if (path === '/platform/chat') return platform(req, res, body);
  res.writeHead(404).end();
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${address.port}`);
});
