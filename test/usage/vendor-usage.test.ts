/**
 * What a chat call spent, said in its result's `_meta`, for Anthropic Messages and OpenAI Responses agents: the
 * scripted APIs report usage as the documented streams do (Anthropic's `message_start` and `message_delta` with cache
 * reads and writes, Responses' `response.completed`), and the official SDKs read the same streams in the same tests.
 */

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USAGE_META, type UsageMeta } from '../../lib/usage/report.js';
import { startMessagesServer, type ScriptedServer } from '../support/messages-server.js';
import { startResponsesServer } from '../support/responses-server.js';
import { CHAT_SCOPE, DOCS_SCOPE, script, startToolsHarness, type ToolsHarness } from '../agent/tools-setup.js';

const KEY = 'sk-usage-test-key-0123456789';
let messages: ScriptedServer;
let responses: ScriptedServer;
let h: ToolsHarness;
beforeAll(async () => {
  [messages, responses] = await Promise.all([startMessagesServer(), startResponsesServer()]);
  h = await startToolsHarness({
    agents: {
      claude: { format: 'anthropic', url: `${messages.url}/v1`, apiKeyEnv: 'VENDOR_KEY', maxTokens: 512, tools: ['docs.*'] },
      responder: { format: 'openai-responses', url: `${responses.url}/v1`, apiKeyEnv: 'VENDOR_KEY', tools: ['docs.*'] },
    },
    env: { VENDOR_KEY: KEY },
  });
});
afterAll(async () => {
  await h.close();
  await Promise.all([messages.close(), responses.close()]);
});

const ALICE = [CHAT_SCOPE, DOCS_SCOPE];
const twoSteps = () => script({ steps: [[{ name: 'docs__echo', arguments: { text: 'one' } }]], final: 'two' });

async function call(client: Client, agentId: string, message: string): Promise<UsageMeta | undefined> {
  const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: agentId, message } });
  expect(result.isError).toBeFalsy();
  return result._meta?.[USAGE_META] as UsageMeta | undefined;
}

describe('anthropic: input is every input token (new, read from the cache, written to it), output is message_delta\'s', () => {
  const sdk = () => new Anthropic({ apiKey: KEY, baseURL: messages.url });
  /** The SDK sends a logged request again and reads its final usage: message_start's, updated by message_delta. */
  const sdkUsage = async (body: any) => (await sdk().messages.stream({ ...body, stream: undefined }).finalMessage()).usage;

  test.each(['legacy', 'modern'] as const)('a two-step tool loop on the %s wire sums both requests, as the SDK reads them', async (era) => {
    const client = await h.connect(era, 'alice', ALICE);
    const message = twoSteps();
    const usage = await call(client, 'claude', message);
    const requests = messages.requestsFor(message);
    expect(requests).toHaveLength(2);
    const read = [];
    for (const request of requests) read.push(await sdkUsage(request.body));
    // The second step's conversation is longer: it reads 200 tokens from the cache, the first reads none.
    expect(read.map((u) => [u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens, u.output_tokens])).toEqual([[10, 0, 50, 20], [10, 200, 50, 20]]);
    expect(usage).toEqual({
      input: read.reduce((sum, u) => sum + u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0), 0),
      output: read.reduce((sum, u) => sum + u.output_tokens, 0),
      cachedInput: read.reduce((sum, u) => sum + (u.cache_read_input_tokens ?? 0), 0),
      cacheWrite: read.reduce((sum, u) => sum + (u.cache_creation_input_tokens ?? 0), 0),
      modelRequests: 2, unknownRequests: 0, estimated: false,
    });
  });
});

describe('openai-responses: response.completed\'s usage, cached input tokens included', () => {
  const sdk = () => new OpenAI({ apiKey: KEY, baseURL: `${responses.url}/v1` });

  test('one request: the result says what the SDK reads in response.completed', async () => {
    const final = await sdk().responses.stream({ model: 'responder-model', input: [{ role: 'user', content: 'spent?' }] }).finalResponse();
    const client = await h.connect('legacy', 'alice', ALICE);
    const usage = await call(client, 'responder', 'spent?');
    expect(final.usage).toMatchObject({ input_tokens: 120, output_tokens: 30 });
    expect(usage).toEqual({
      input: final.usage!.input_tokens, output: final.usage!.output_tokens, cachedInput: final.usage!.input_tokens_details.cached_tokens,
      cacheWrite: 0, modelRequests: 1, unknownRequests: 0, estimated: false,
    });
  });

  test('a two-step tool loop sums both requests; the step that continues a response reads its input from the cache', async () => {
    const client = await h.connect('modern', 'alice', ALICE);
    const message = twoSteps();
    const usage = await call(client, 'responder', message);
    // The follow-up continues the first response (previous_response_id): the SDK reads it as such.
    const first = await sdk().responses.stream({ model: 'responder-model', input: [{ role: 'user', content: message }] }).finalResponse();
    const second = await sdk().responses.stream({
      model: 'responder-model', previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_0_0', output: 'docs: one' }],
    }).finalResponse();
    expect(second.usage!.input_tokens_details.cached_tokens).toBe(100);
    expect(usage).toEqual({
      input: first.usage!.input_tokens + second.usage!.input_tokens,
      output: first.usage!.output_tokens + second.usage!.output_tokens,
      cachedInput: first.usage!.input_tokens_details.cached_tokens + second.usage!.input_tokens_details.cached_tokens,
      cacheWrite: 0, modelRequests: 2, unknownRequests: 0, estimated: false,
    });
  });
});
