/**
 * `openai-responses` agents end to end: official MCP SDK clients over HTTP on both wires, agent-mcp behind real
 * bearer auth, and a scripted Responses API written from the documented streaming events, which the official
 * `openai` SDK reads in the same tests (so the scripted server is proven faithful to the API the adapter is written for).
 */

import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RESPONSES_SECRET, startResponsesServer } from '../../support/responses-server.js';
import type { ScriptedServer } from '../../support/messages-server.js';
import { describeAgentFormat } from '../contract/suite.js';
import { CHAT_SCOPE, DOCS_SCOPE, script, startToolsHarness, type ToolsHarness } from '../tools-setup.js';
import { chat, noted } from './setup.js';

const KEY = 'sk-responses-test-key-0123456789';
let api: ScriptedServer;
let h: ToolsHarness;
beforeAll(async () => {
  api = await startResponsesServer();
  h = await startToolsHarness({
    agents: { responder: { name: 'Responder', format: 'openai-responses', url: `${api.url}/v1`, apiKeyEnv: 'RESPONSES_KEY', systemPrompt: 'Be brief.', tools: ['docs.*', 'premium'] } },
    env: { RESPONSES_KEY: KEY, AGENT_MAX_TOOL_CALLS_PER_REPLY: '3' },
  });
});
afterAll(async () => {
  await h.close();
  await api.close();
});

const ALICE = [CHAT_SCOPE, DOCS_SCOPE];
const sdk = () => new OpenAI({ apiKey: KEY, baseURL: `${api.url}/v1` });
const RESPONSE_ID = /resp_[0-9a-f]{32}/;

describe('the scripted Responses API is faithful: the official SDK reads the stream the adapter reads', () => {
  test('a reply with reasoning, a web search and text: the SDK sees the three items, the caller the text alone', async () => {
    const final = await sdk().responses.stream({ model: 'responder-model', input: [{ role: 'user', content: 'faithful?' }] }).finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'web_search_call', 'message']);

    const client = await h.connect('legacy', 'alice', ALICE);
    const { text } = await chat(client, 'responder', 'faithful?');
    expect(text).toBe(final.output_text);
    expect(text).toBe('Responses echo: faithful? (after none, turn 1)');
  });

  test('a reply asking for tools: the SDK reads the same function calls the adapter runs', async () => {
    const message = script({ steps: [[{ name: 'docs__echo', arguments: { text: 'one' } }, { name: 'docs__weather', arguments: { city: 'Paris' } }]] });
    const final = await sdk().responses.stream({ model: 'responder-model', input: [{ role: 'user', content: message }] }).finalResponse();
    const sdkCalls = final.output.flatMap((item) => (item.type === 'function_call' ? [{ name: item.name, arguments: item.arguments }] : []));
    expect(sdkCalls).toEqual([{ name: 'docs__echo', arguments: '{"text":"one"}' }, { name: 'docs__weather', arguments: '{"city":"Paris"}' }]);

    const client = await h.connect('legacy', 'alice', ALICE);
    const { result } = await chat(client, 'responder', message);
    const ran = (result.structuredContent as { tool_calls: Array<{ name: string; arguments: string }> }).tool_calls;
    expect(ran.map((call) => ({ name: call.name.replace('.', '__'), arguments: call.arguments }))).toEqual(sdkCalls);
  });
});

describe.each(['legacy', 'modern'] as const)('an openai-responses agent on the %s wire', (era) => {
  test('two turns: text streams as progress, the web search is a progress line, reasoning never shows; the second continues the first response', async () => {
    const client = await h.connect(era, 'alice', ALICE);
    const first = await chat(client, 'responder', 'hello');
    expect(first.result.isError).toBeFalsy();
    expect(first.text).toBe('Responses echo: hello (after none, turn 1)');
    expect(noted(first.progress, 'responder: running its own tool web_search…')).toBe(true);
    expect(JSON.stringify(first)).not.toContain('secret reasoning');

    const second = await chat(client, 'responder', `again on ${era}`, first.sessionId);
    expect(second.text).toMatch(new RegExp(`^Responses echo: again on ${era} \\(after ${RESPONSE_ID.source}, turn 2\\)$`));
    const [opening] = api.requestsFor('hello');
    const [request] = api.requestsFor(`again on ${era}`);
    // The upstream keeps the conversation: only the new message goes up, continuing the response the first turn made.
    expect(request!.body).toMatchObject({ model: 'responder-model', instructions: 'Be brief.', stream: true, input: [{ role: 'user', content: `again on ${era}` }] });
    expect(request!.body.previous_response_id).toMatch(RESPONSE_ID);
    expect(opening!.body.previous_response_id).toBeUndefined();
    expect(second.text).toContain(request!.body.previous_response_id);
    // The client's session_id is never the upstream's id.
    expect(first.sessionId).not.toBe(request!.body.previous_response_id);
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
  });
});

describe('tools in the Responses wire', () => {
  test('function_call items run as the caller, function_call_output items continue the response; a paid tool is refused', async () => {
    const client = await h.connect('modern', 'alice', ALICE);
    const message = script({ steps: [[{ name: 'docs__echo', arguments: { text: 'one' } }, { name: 'premium' }]], final: 'answered' });
    const { result, text } = await chat(client, 'responder', message);
    expect(text).toBe("responder-model: answered [docs: one | Tool premium was refused: it is a paid tool, and agent-mcp never pays on the caller's behalf.]");
    expect(h.premiumRuns()).toBe(0);
    expect((result.structuredContent as { tool_calls: unknown[] }).tool_calls).toEqual([
      { chain: 'responder', name: 'docs.echo', arguments: '{"text":"one"}', ok: true },
      { chain: 'responder', name: 'premium', arguments: '{}', ok: false },
    ]);
    const [first, second] = api.requestsFor(message);
    expect(first!.body.tools.map((t: { name: string }) => t.name)).not.toContain('premium');
    expect(first!.body.tools.find((t: { name: string }) => t.name === 'docs__echo')).toMatchObject({ type: 'function', parameters: { properties: { text: { type: 'string' } } } });
    expect(second!.body.previous_response_id).toMatch(RESPONSE_ID);
    expect(second!.body.input).toEqual([
      { type: 'function_call_output', call_id: 'call_0_0', output: 'docs: one' },
      { type: 'function_call_output', call_id: 'call_0_1', output: "Tool premium was refused: it is a paid tool, and agent-mcp never pays on the caller's behalf." },
    ]);
  });
});

describe('bounds', () => {
  test('a reply asking for more calls than AGENT_MAX_TOOL_CALLS_PER_REPLY ends the turn with an isError naming it, nothing run', async () => {
    const client = await h.connect('legacy', 'alice', ALICE);
    const echo = { name: 'docs__echo', arguments: { text: 'x' } };
    const message = script({ steps: [[echo, echo, echo, echo]] });
    const { result, text } = await chat(client, 'responder', message);
    expect(result.isError).toBe(true);
    expect(text).toBe('Agent responder asked for more than 3 tool calls in one reply (AGENT_MAX_TOOL_CALLS_PER_REPLY is 3); the turn was stopped.');
    expect(api.requestsFor(message)).toHaveLength(1);
  });
});

describe('failures and cancellation', () => {
  test('a response id longer than 256 characters is not kept: the turn is an isError saying so', async () => {
    const client = await h.connect('legacy', 'alice', ALICE);
    const { result, text } = await chat(client, 'responder', 'fault:long-id');
    expect(result.isError).toBe(true);
    expect(text).toBe('Agent responder: the upstream sent an id longer than 256 characters.');
  });
});

// Isolation, cancellation and an error event (the cases this file checked itself before) are the contract's.
describeAgentFormat('openai-responses', {
  progress: 'streams',
  usage: 'reported',
  async start() {
    const responses = await startResponsesServer();
    return {
      settings: { url: `${responses.url}/v1`, model: 'responder-model' },
      says: {
        // The upstream keeps the conversation: a later turn names the response it continues.
        reply: (message, turn) => (turn === 1 ? `Responses echo: ${message} (after none, turn 1)`
          : new RegExp(`^Responses echo: ${message} \\(after ${RESPONSE_ID.source}, turn ${turn}\\)$`)),
        streamed: (marker) => `slow ${marker}`,
        long: (marker) => `slow ${marker} ${'and on '.repeat(20)}`,
        serverError: 'fault:secrets',
        errorInReply: { message: 'fault:error', secret: RESPONSES_SECRET },
        huge: (bytes) => `fault:huge ${bytes}`,
      },
      received: async (text) => responses.requestsFor(text).length > 0,
      aborted: async (text) => responses.requestsFor(text).some((request) => request.closed),
      close: () => responses.close(),
    };
  },
});
