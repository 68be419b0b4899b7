/**
 * A scripted OpenAI Responses API for tests (test-only), written from the documented streaming events
 * (`response.created`, `response.output_item.added` / `.done`, `response.content_part.*`, `response.output_text.delta`
 * / `.done`, `response.function_call_arguments.delta` / `.done`, reasoning summary and web search events,
 * `response.completed`, `error`), each as `event: <type>` and its JSON `data:` with a `sequence_number`. Tests prove
 * it faithful by reading the same stream with the official `openai` SDK. It keeps every response it made, so
 * `previous_response_id` continues a chain: a follow-up carrying `function_call_output` items continues the turn
 * that asked for the calls. The turn's user text picks:
 *   "script {json}" calls tools as messages-server.ts's scripts do · "slow …" text pieces 200 ms apart ·
 *   "fault:error" an `error` event holding a secret · "fault:huge <bytes>" that many bytes of text deltas · "fault:secrets"
 *   HTTP 500 (messages-server.ts's startScripted) · "fault:long-id" a response id of 305 characters · anything else: a reasoning summary ("secret reasoning"), a
 *   web_search_call, then "Responses echo: <text> (after <previous id or none>, turn N)", N the user turns in the chain.
 */

import type { ServerResponse } from 'node:http';
import { startScripted, type Script, type ScriptedServer } from './messages-server.js';

export const RESPONSES_SECRET = 'sk-proj-internal-1a2b3c http://10.4.5.6/admin';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Kept {
  /** The user text of the turn this response belongs to. */
  text: string;
  /** Tool rounds so far in that turn, and the outputs sent for them. */
  step: number;
  results: string[];
  /** User turns in the chain up to this response. */
  turns: number;
}

/** What response.completed says a request spent: 120 input tokens, 100 of them cached when it continues a response, and 30 output. */
function responseUsage(body: any) {
  const cached = body.previous_response_id ? 100 : 0;
  return { input_tokens: 120, input_tokens_details: { cached_tokens: cached }, output_tokens: 30, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 150 };
}

export function startResponsesServer(): Promise<ScriptedServer> {
  const kept = new Map<string, Kept>();
  const userText = (body: any): string | undefined => {
    const input = body?.input;
    if (typeof input === 'string') return input;
    const user = Array.isArray(input) ? input.findLast((item: any) => item.role === 'user') : undefined;
    return user === undefined ? undefined : typeof user.content === 'string' ? user.content : user.content.map((c: any) => c.text).join('');
  };
  const lastText = (body: any) => userText(body) ?? kept.get(body?.previous_response_id)?.text ?? '';
  return startScripted(lastText, async (body, res: ServerResponse, text) => {
    const previous = body.previous_response_id ? kept.get(body.previous_response_id) : undefined;
    if (body.previous_response_id && !previous) {
      res.writeHead(400, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: { message: `Previous response ${body.previous_response_id} not found.`, type: 'invalid_request_error' } }));
    }
    const fresh = userText(body) !== undefined;
    const outputs: string[] = (Array.isArray(body.input) ? body.input : []).filter((i: any) => i.type === 'function_call_output').map((i: any) => i.output);
    const state: Kept = fresh
      ? { text, step: 0, results: [], turns: (previous?.turns ?? 0) + 1 }
      : { ...previous!, step: previous!.step + 1, results: [...previous!.results, ...outputs] };
    const id = text === 'fault:long-id' ? `resp_${'x'.repeat(300)}` : `resp_${crypto.randomUUID().replaceAll('-', '')}`;
    kept.set(id, state);
    let sequence = 0;
    const output: any[] = [];
    const response = (status: string) => ({ id, object: 'response', created_at: 1_800_000_000, status, model: body.model, output, error: null,
      incomplete_details: null, previous_response_id: body.previous_response_id ?? null, parallel_tool_calls: true, tools: body.tools ?? [] });
    const event = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
    const pieces = (value: string, size = 8) => value.match(new RegExp(`.{1,${size}}`, 'gs')) ?? [];
    const message = async (answer: string, gapMs = 1, size = 8) => {
      const output_index = output.length;
      const item = { id: `msg_${output_index}`, type: 'message', status: 'in_progress', role: 'assistant', content: [] as any[] };
      event('response.output_item.added', { output_index, item });
      event('response.content_part.added', { item_id: item.id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      for (const delta of pieces(answer, size)) {
        if (res.destroyed) return;
        event('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta, logprobs: [] });
        await sleep(gapMs);
      }
      const part = { type: 'output_text', text: answer, annotations: [] };
      event('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text: answer, logprobs: [] });
      event('response.content_part.done', { item_id: item.id, output_index, content_index: 0, part });
      const done = { ...item, status: 'completed', content: [part] };
      output.push(done);
      event('response.output_item.done', { output_index, item: done });
    };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    event('response.created', { response: response('in_progress') });
    event('response.in_progress', { response: response('in_progress') });
    if (text.startsWith('script ')) {
      const script = JSON.parse(text.slice('script '.length)) as Script;
      const calls = script.steps?.[state.step] ?? [];
      if (calls.length) {
        for (const [i, call] of calls.entries()) {
          const output_index = output.length;
          const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
          const item = { id: `fc_${state.step}_${i}`, type: 'function_call', status: 'in_progress', call_id: `call_${state.step}_${i}`, name: call.name, arguments: '' };
          event('response.output_item.added', { output_index, item });
          for (const delta of pieces(args, 5)) event('response.function_call_arguments.delta', { item_id: item.id, output_index, delta });
          event('response.function_call_arguments.done', { item_id: item.id, output_index, arguments: args });
          const done = { ...item, status: 'completed', arguments: args };
          output.push(done);
          event('response.output_item.done', { output_index, item: done });
        }
      } else {
        await message(`${body.model}: ${script.final ?? 'done'}${state.results.length ? ` [${state.results.join(' | ')}]` : ''}`);
      }
    } else if (text.startsWith('fault:huge ')) {
      await message('x'.repeat(Number(text.split(' ')[1])), 0, 1000);
    } else if (text === 'fault:error') {
      await message('Partial');
      event('error', { code: 'server_error', message: `Internal error at ${RESPONSES_SECRET}`, param: null });
      return void res.end();
    } else {
      const reasoning = { id: 'rs_0', type: 'reasoning', summary: [] as any[] };
      event('response.output_item.added', { output_index: 0, item: reasoning });
      event('response.reasoning_summary_part.added', { item_id: 'rs_0', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } });
      event('response.reasoning_summary_text.delta', { item_id: 'rs_0', output_index: 0, summary_index: 0, delta: 'secret reasoning' });
      event('response.reasoning_summary_text.done', { item_id: 'rs_0', output_index: 0, summary_index: 0, text: 'secret reasoning' });
      event('response.reasoning_summary_part.done', { item_id: 'rs_0', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: 'secret reasoning' } });
      output.push({ ...reasoning, summary: [{ type: 'summary_text', text: 'secret reasoning' }] });
      event('response.output_item.done', { output_index: 0, item: output[0] });
      const search = { id: 'ws_1', type: 'web_search_call', status: 'in_progress' };
      event('response.output_item.added', { output_index: 1, item: search });
      event('response.web_search_call.in_progress', { item_id: 'ws_1', output_index: 1 });
      event('response.web_search_call.searching', { item_id: 'ws_1', output_index: 1 });
      event('response.web_search_call.completed', { item_id: 'ws_1', output_index: 1 });
      output.push({ ...search, status: 'completed', action: { type: 'search', query: 'x' } });
      event('response.output_item.done', { output_index: 1, item: output[1] });
      await message(`Responses echo: ${text} (after ${body.previous_response_id ?? 'none'}, turn ${state.turns})`, text.startsWith('slow') ? 200 : 1);
    }
    if (res.destroyed) return;
    event('response.completed', { response: { ...response('completed'), usage: responseUsage(body) } });
    res.end();
  });
}
