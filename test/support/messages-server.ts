/**
 * A scripted Anthropic Messages API for tests (test-only), written from the documented stream grammar
 * (`message_start`, per block `content_block_start` / `content_block_delta`s / `content_block_stop`,
 * `message_delta`, `message_stop`, `ping`, `error`), each event as `event: <type>` and its JSON `data:`. Tests
 * prove it faithful by reading the same stream with the official @anthropic-ai/sdk. The last user text picks:
 *   "script {json}" a model that calls tools (as upstream-server.ts's scriptedModel: `steps` of calls, then `final`
 *     text quoting the tool results it was sent) · "slow …" text pieces 200 ms apart · "fault:error" an `error`
 *     event holding a secret after some text · "fault:huge <bytes>" that many bytes of text deltas · "fault:secrets"
 *     HTTP 500 (startScripted) · anything else: a thinking block ("secret reasoning"), a server-side
 *     web_search tool and its result, then "Claude echo: <text> (history N)" in pieces, N the earlier messages.
 * Requests (headers and body) are recorded; `closed` counts replies the client went away from.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { secretsText } from './upstream.js';

export const MESSAGES_SECRET = 'sk-ant-internal-9f8e7d http://10.1.2.3/admin';

export interface RecordedRequest {
  headers: IncomingMessage['headers'];
  body: any;
  /** The client went away before the reply ended. */
  closed?: boolean;
}

export interface ScriptedServer {
  url: string;
  requests: RecordedRequest[];
  /** Requests whose last user text is `text`. */
  requestsFor(text: string): RecordedRequest[];
  /** Replies the client stopped reading before they ended. */
  closed(): number;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function readJson(req: IncomingMessage): Promise<any> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk) => { text += chunk; });
    req.on('end', () => resolve(text ? JSON.parse(text) : {}));
  });
}

/**
 * Starts `handle` on loopback, recording each request and counting replies cut short. "fault:secrets" is answered
 * here for every scripted API: HTTP 500, an error body (both APIs' shape: `error.message`) holding the key the
 * request carried and the secrets of upstream.ts's secretsText.
 */
export async function startScripted(
  lastText: (body: any) => string,
  handle: (body: any, res: ServerResponse, text: string) => Promise<void>,
): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  let closed = 0;
  const server = createServer(async (req, res) => {
    const body = await readJson(req);
    const recorded: RecordedRequest = { headers: req.headers, body };
    requests.push(recorded);
    res.on('close', () => {
      if (res.writableEnded) return;
      closed += 1;
      recorded.closed = true;
    });
    const text = lastText(body);
    if (text === 'fault:secrets') {
      const key = String(req.headers['x-api-key'] ?? req.headers.authorization ?? '').replace(/^Bearer /, '');
      res.writeHead(500, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: secretsText(key).text } }));
    }
    await handle(body, res, text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    requestsFor: (text) => requests.filter((r) => lastText(r.body) === text),
    closed: () => closed,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** The calls of a script's step, as upstream-server.ts's scriptedModel takes them. */
export interface Script {
  steps?: Array<Array<{ name: string; arguments?: unknown }>>;
  final?: string;
}

const textOf = (content: unknown): string =>
  (typeof content === 'string' ? content : Array.isArray(content) ? content.filter((b) => b.type === 'text').map((b) => b.text).join('') : '');

/** The text of the last user message that carries text (tool_result messages carry none). */
function lastUserText(body: any): string {
  const messages: any[] = body?.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user' && textOf(messages[i].content)) return textOf(messages[i].content);
  return '';
}

/**
 * What message_start says a request spent: 10 new input tokens, 50 written to the prompt cache, and 200 read from it
 * once the conversation has more than one message; `message_delta` then says 20 output tokens in all, its other counts null.
 */
function messageUsage(body: any) {
  return { input_tokens: 10, cache_creation_input_tokens: 50, cache_read_input_tokens: (body.messages?.length ?? 0) > 1 ? 200 : 0, output_tokens: 1 };
}

export function startMessagesServer(): Promise<ScriptedServer> {
  return startScripted(lastUserText, async (body, res, text) => {
    let index = 0;
    const event = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    const block = async (start: Record<string, unknown>, deltas: Array<Record<string, unknown>>, gapMs = 1) => {
      event('content_block_start', { index, content_block: start });
      for (const delta of deltas) {
        if (res.destroyed) return;
        event('content_block_delta', { index, delta });
        await sleep(gapMs);
      }
      event('content_block_stop', { index });
      index += 1;
    };
    const pieces = (value: string, size = 8) => value.match(new RegExp(`.{1,${size}}`, 'gs')) ?? [];
    res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_test' });
    event('message_start', { message: { id: `msg_${crypto.randomUUID()}`, type: 'message', role: 'assistant', content: [], model: body.model,
      stop_reason: null, stop_sequence: null, usage: messageUsage(body) } });
    event('ping', {});
    let stop = 'end_turn';
    const messages: any[] = body.messages ?? [];
    const since = messages.slice(messages.findLastIndex((m) => m.role === 'user' && textOf(m.content)) + 1);
    if (text.startsWith('script ')) {
      const script = JSON.parse(text.slice('script '.length)) as Script;
      const step = since.filter((m) => m.role === 'assistant').length;
      const calls = script.steps?.[step] ?? [];
      if (calls.length) {
        for (const [i, call] of calls.entries()) {
          const json = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
          // Short arguments in 5-character deltas, long ones in at most about 100: each delta waits a timer's
          // gap, and 30 KB of arguments in 5-character deltas took 9 s idle (more than a test's 20 s under load).
          await block({ type: 'tool_use', id: `toolu_${step}_${i}`, name: call.name, input: {} },
            pieces(json, Math.max(5, Math.ceil(json.length / 100))).map((partial_json) => ({ type: 'input_json_delta', partial_json })));
        }
        stop = 'tool_use';
      } else {
        const results = since.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === 'tool_result').map((b: any) => b.content);
        const answer = `${body.model}: ${script.final ?? 'done'}${results.length ? ` [${results.join(' | ')}]` : ''}`;
        await block({ type: 'text', text: '' }, pieces(answer).map((t) => ({ type: 'text_delta', text: t })));
      }
    } else if (text.startsWith('fault:huge ')) {
      const bytes = Number(text.split(' ')[1]);
      await block({ type: 'text', text: '' }, Array.from({ length: Math.ceil(bytes / 1000) }, () => ({ type: 'text_delta', text: 'x'.repeat(1000) })), 0);
    } else if (text === 'fault:error') {
      await block({ type: 'text', text: '' }, [{ type: 'text_delta', text: 'Partial' }]);
      event('error', { error: { type: 'overloaded_error', message: `Overloaded at ${MESSAGES_SECRET}` } });
      return void res.end();
    } else {
      await block({ type: 'thinking', thinking: '' }, [{ type: 'thinking_delta', thinking: 'secret reasoning' }, { type: 'signature_delta', signature: 'c2ln' }]);
      await block({ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }, [{ type: 'input_json_delta', partial_json: '{"query":"x"}' }]);
      await block({ type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] }, []);
      const answer = `Claude echo: ${text} (history ${messages.length - 1})`;
      await block({ type: 'text', text: '' }, pieces(answer).map((t) => ({ type: 'text_delta', text: t })), text.startsWith('slow') ? 200 : 1);
    }
    if (res.destroyed) return;
    // The counts a delta does not update are null (the SDK's MessageDeltaUsage), the output tokens a running total.
    event('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { input_tokens: null, cache_creation_input_tokens: null, cache_read_input_tokens: null, output_tokens: 20 } });
    event('message_stop', {});
    res.end();
  });
}
