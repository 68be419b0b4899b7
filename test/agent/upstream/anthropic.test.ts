/**
 * `anthropic` agents end to end: official MCP SDK clients over HTTP on both wires, agent-mcp behind real bearer auth,
 * and a scripted Messages API written from the documented stream grammar, which the official @anthropic-ai/sdk reads
 * in the same tests (so the scripted server is proven faithful to the API the adapter is written for).
 */

import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MESSAGES_SECRET, startMessagesServer, type ScriptedServer } from '../../support/messages-server.js';
import { describeAgentFormat } from '../contract/suite.js';
import { CHAT_SCOPE, DOCS_SCOPE, script, startToolsHarness, type ToolsHarness } from '../tools-setup.js';
import { chat, noted } from './setup.js';

const KEY = 'sk-ant-test-key-0123456789';
let api: ScriptedServer;
let h: ToolsHarness;
beforeAll(async () => {
  api = await startMessagesServer();
  h = await startToolsHarness({
    agents: { claude: { name: 'Claude', format: 'anthropic', url: `${api.url}/v1`, apiKeyEnv: 'CLAUDE_KEY', maxTokens: 512, systemPrompt: 'Be brief.', tools: ['docs.*', 'premium'] } },
    env: { CLAUDE_KEY: KEY, AGENT_MAX_TOOL_CALLS_PER_REPLY: '3' },
  });
});
afterAll(async () => {
  await h.close();
  await api.close();
});

const ALICE = [CHAT_SCOPE, DOCS_SCOPE];
const sdk = () => new Anthropic({ apiKey: KEY, baseURL: api.url });

describe('the scripted Messages API is faithful: the official SDK reads the stream the adapter reads', () => {
  test('a reply with thinking, a server tool and text: the SDK sees all three blocks, the caller the text alone', async () => {
    const final = await sdk().messages.stream({ model: 'claude-model', max_tokens: 100, messages: [{ role: 'user', content: 'faithful?' }] }).finalMessage();
    expect(final.content.map((block) => block.type)).toEqual(['thinking', 'server_tool_use', 'web_search_tool_result', 'text']);
    expect(final.stop_reason).toBe('end_turn');
    const sdkText = final.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');

    const client = await h.connect('legacy', 'alice', ALICE);
    const { text } = await chat(client, 'claude', 'faithful?');
    expect(text).toBe(sdkText);
    expect(text).toBe('Claude echo: faithful? (history 0)');
  });

  test('a reply asking for tools: the SDK parses the same tool_use inputs the adapter runs', async () => {
    const message = script({ steps: [[{ name: 'docs__echo', arguments: { text: 'one' } }, { name: 'docs__weather', arguments: { city: 'Paris' } }]] });
    const final = await sdk().messages.stream({ model: 'claude-model', max_tokens: 100, messages: [{ role: 'user', content: message }] }).finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    const sdkCalls = final.content.flatMap((block) => (block.type === 'tool_use' ? [{ name: block.name, input: block.input }] : []));
    expect(sdkCalls).toEqual([{ name: 'docs__echo', input: { text: 'one' } }, { name: 'docs__weather', input: { city: 'Paris' } }]);

    const client = await h.connect('legacy', 'alice', ALICE);
    const { result } = await chat(client, 'claude', message);
    const ran = (result.structuredContent as { tool_calls: Array<{ name: string; arguments: string }> }).tool_calls;
    expect(ran.map((call) => ({ name: call.name.replace('.', '__'), input: JSON.parse(call.arguments) }))).toEqual(sdkCalls);
  });
});

describe.each(['legacy', 'modern'] as const)('an anthropic agent on the %s wire', (era) => {
  test('two turns: text streams as progress, the server tool is a progress line, thinking never shows, the history goes up', async () => {
    const client = await h.connect(era, 'alice', ALICE);
    const first = await chat(client, 'claude', 'hello');
    expect(first.result.isError).toBeFalsy();
    expect(first.text).toBe('Claude echo: hello (history 0)');
    expect(noted(first.progress, 'claude: running its own tool web_search…')).toBe(true);
    expect(first.progress.join('')).toContain('Claude echo');
    expect(JSON.stringify(first)).not.toContain('secret reasoning');

    const second = await chat(client, 'claude', `again on ${era}`, first.sessionId);
    expect(second.text).toBe(`Claude echo: again on ${era} (history 2)`);
    const [request] = api.requestsFor(`again on ${era}`);
    expect(request!.body).toMatchObject({ model: 'claude-model', max_tokens: 512, system: 'Be brief.', stream: true,
      messages: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'Claude echo: hello (history 0)' }, { role: 'user', content: `again on ${era}` }] });
    // The key goes in x-api-key with the API version, never as a bearer token.
    expect(request!.headers).toMatchObject({ 'x-api-key': KEY, 'anthropic-version': '2023-06-01' });
    expect(request!.headers.authorization).toBeUndefined();
  });
});

describe('tools in the Messages wire', () => {
  test('tool_use blocks run as the caller and tool_result blocks answer them; a paid tool is refused without running', async () => {
    const client = await h.connect('modern', 'alice', ALICE);
    const message = script({ steps: [[{ name: 'docs__echo', arguments: { text: 'one' } }, { name: 'premium' }]], final: 'answered' });
    const { result, text, progress } = await chat(client, 'claude', message);
    expect(text).toBe("claude-model: answered [docs: one | Tool premium was refused: it is a paid tool, and agent-mcp never pays on the caller's behalf.]");
    expect(h.premiumRuns()).toBe(0);
    expect(progress.some((line) => /^claude: calling docs\.echo…/.test(line) || /^claude: calling premium…/.test(line))).toBe(true);
    expect((result.structuredContent as { tool_calls: unknown[] }).tool_calls).toEqual([
      { chain: 'claude', name: 'docs.echo', arguments: '{"text":"one"}', ok: true },
      { chain: 'claude', name: 'premium', arguments: '{}', ok: false },
    ]);
    const [first, second] = api.requestsFor(message);
    expect(first!.body.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['docs__echo', 'docs__weather']));
    expect(first!.body.tools.map((t: { name: string }) => t.name)).not.toContain('premium');
    expect(first!.body.tools.find((t: { name: string }) => t.name === 'docs__echo').input_schema).toMatchObject({ properties: { text: { type: 'string' } } });
    expect(second!.body.messages.slice(-2)).toEqual([
      { role: 'assistant', content: [
        { type: 'tool_use', id: 'toolu_0_0', name: 'docs__echo', input: { text: 'one' } },
        { type: 'tool_use', id: 'toolu_0_1', name: 'premium', input: {} },
      ] },
      { role: 'user', content: [
        { type: 'tool_result', tool_use_id: 'toolu_0_0', content: 'docs: one' },
        { type: 'tool_result', tool_use_id: 'toolu_0_1', content: "Tool premium was refused: it is a paid tool, and agent-mcp never pays on the caller's behalf." },
      ] },
    ]);
  });
});

describe('bounds', () => {
  test('a reply asking for more calls than AGENT_MAX_TOOL_CALLS_PER_REPLY ends the turn with an isError naming it, nothing run', async () => {
    const client = await h.connect('legacy', 'alice', ALICE);
    const echo = { name: 'docs__echo', arguments: { text: 'x' } };
    const message = script({ steps: [[echo, echo, echo, echo]] });
    const { result, text } = await chat(client, 'claude', message);
    expect(result.isError).toBe(true);
    expect(text).toBe('Agent claude asked for more than 3 tool calls in one reply (AGENT_MAX_TOOL_CALLS_PER_REPLY is 3); the turn was stopped.');
    expect(api.requestsFor(message)).toHaveLength(1);
  });
});

// Isolation, cancellation and an error event (the cases this file checked itself before) are the contract's.
describeAgentFormat('anthropic', {
  progress: 'streams',
  usage: 'reported',
  async start() {
    const messages = await startMessagesServer();
    return {
      settings: { url: `${messages.url}/v1`, model: 'claude-model' },
      says: {
        reply: (message, turn) => `Claude echo: ${message} (history ${2 * (turn - 1)})`,
        streamed: (marker) => `slow ${marker}`,
        long: (marker) => `slow ${marker} ${'and on '.repeat(20)}`,
        serverError: 'fault:secrets',
        errorInReply: { message: 'fault:error', secret: MESSAGES_SECRET },
        huge: (bytes) => `fault:huge ${bytes}`,
      },
      received: async (text) => messages.requestsFor(text).length > 0,
      aborted: async (text) => messages.requestsFor(text).some((request) => request.closed),
      close: () => messages.close(),
    };
  },
});
