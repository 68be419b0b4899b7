/**
 * Every upstream's JSON is held to one depth bound, MCP_MAX_JSON_DEPTH, and so are the tool-call arguments a model
 * writes as a JSON string inside it: arguments 5,000 levels deep end the turn with a fixed sentence for the caller
 * and one counted line for the operator, never a RangeError, and no tool runs. Three formats through real HTTP:
 * the scripted OpenAI-compatible model, the scripted Messages API and the scripted Responses API (each proven
 * faithful to its vendor's SDK in its own test file), official MCP SDK clients as callers.
 */

import { afterAll, beforeAll, describe, expect, test, vi, type MockInstance } from 'vitest';
import { startMessagesServer, type ScriptedServer } from '../../support/messages-server.js';
import { startResponsesServer } from '../../support/responses-server.js';
import { CHAT_SCOPE, DOCS_SCOPE, script, startToolsHarness, type ToolsHarness } from '../tools-setup.js';
import { chat } from './setup.js';

const LEVELS = 5_000;
const DEEP = `${'{"a":'.repeat(LEVELS)}1${'}'.repeat(LEVELS)}`;
const ALICE = [CHAT_SCOPE, DOCS_SCOPE];

let messages: ScriptedServer;
let responses: ScriptedServer;
let h: ToolsHarness;
let warn: MockInstance;
let error: MockInstance;
const logged = () => [...warn.mock.calls, ...error.mock.calls].flat().join('\n');
beforeAll(async () => {
  warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  [messages, responses] = await Promise.all([startMessagesServer(), startResponsesServer()]);
  h = await startToolsHarness({
    agents: {
      chat: { tools: ['docs.*'] },
      claude: { format: 'anthropic', url: `${messages.url}/v1`, tools: ['docs.*'] },
      responder: { format: 'openai-responses', url: `${responses.url}/v1`, tools: ['docs.*'] },
    },
  });
});
afterAll(async () => {
  warn.mockRestore();
  error.mockRestore();
  await h.close();
  await Promise.all([messages.close(), responses.close()]);
});

const docsCalls = () => h.docs.methods.filter((m) => m === 'tools/call').length;

describe.each(['chat', 'claude', 'responder'])('agent %s (MCP_MAX_JSON_DEPTH at its default, 64)', (agent) => {
  test(`tool-call arguments ${LEVELS} levels deep end the turn with a fixed sentence, and nothing runs`, async () => {
    const client = await h.connect('legacy', 'alice', ALICE);
    const before = docsCalls();
    const message = script({ steps: [[{ name: 'docs__echo', arguments: DEEP }, { name: 'docs__echo', arguments: { text: 'shallow' } }]] });
    const { result, text } = await chat(client, agent, message);
    expect(result.isError).toBe(true);
    expect(text).toBe(`Agent ${agent}: the upstream sent JSON nesting deeper than 64 levels (MCP_MAX_JSON_DEPTH); the turn was stopped.`);
    expect(docsCalls()).toBe(before);
    expect(logged()).not.toMatch(/RangeError|failed unexpectedly/);
  });

  test('arguments at the bound run as before', async () => {
    const client = await h.connect('modern', 'alice', ALICE);
    const at64 = `{"text":"deep enough","extra":${'['.repeat(63)}${']'.repeat(63)}}`;
    const message = script({ steps: [[{ name: 'docs__echo', arguments: at64 }]], final: 'ok' });
    const { result, text } = await chat(client, agent, message);
    expect(result.isError).toBeFalsy();
    expect(text).toContain('docs: deep enough');
  });
});

test('the operator reads a line for the first refusal at once; the lines count each refusal once at most', () => {
  const lines = warn.mock.calls.flat().map(String).filter((line) => line.includes('MCP_MAX_JSON_DEPTH'));
  expect(lines[0]).toBe('[agent-mcp] refused 1 upstream JSON value nesting deeper than MCP_MAX_JSON_DEPTH (latest: agent chat)');
  // The rest go into the line a minute after the first (test/limits/counted-warning.test.ts holds that timing with
  // fake timers); whether this file ran for more than a minute, and so whether that line is out yet, is the machine's
  // load, not the code's: what is out counts each refusal once, none twice.
  const counted = lines.map((line) => /^\[agent-mcp\] refused (\d+) upstream JSON values? nesting deeper than MCP_MAX_JSON_DEPTH \(latest: agent (chat|claude|responder)\)$/.exec(line));
  expect(counted.every((match) => match !== null)).toBe(true);
  expect(counted.reduce((n, match) => n + Number(match![1]), 0)).toBeLessThanOrEqual(3);
});
