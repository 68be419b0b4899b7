/**
 * What a chat call spent, said in its result's `_meta` (docs/agents.md "Usage"; rule 17), for OpenAI chat completions
 * agents and in-process agents, over real HTTP with the official MCP client. The stand-in upstream answers
 * `stream_options.include_usage` with its usage chunk; the official `openai` SDK reads the same streams in the same
 * tests, so the numbers the caller is told are the ones the API's own client reads.
 */

import OpenAI from 'openai';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AgentTurn } from '../../lib/agent/types.js';
import { USAGE_META, type UsageMeta } from '../../lib/usage/report.js';
import type { UpstreamLogEntry } from '../support/upstream.js';
import { CHAT_SCOPE, DOCS_SCOPE, script, startToolsHarness, type ToolsHarness } from '../agent/tools-setup.js';

let h: ToolsHarness;
beforeAll(async () => {
  h = await startToolsHarness({
    inProcess: [{
      id: 'counter',
      name: 'Counter',
      description: 'An in-process agent that reports what its own two model requests spent.',
      async *reply(turn: AgentTurn) {
        turn.usage?.record({ input: 7, output: 3 });
        yield 'one, ';
        turn.usage?.record({ input: 11, output: 5, cachedInput: 4 });
        yield 'two';
      },
    }],
  });
});
afterAll(async () => {
  await h.close();
});

const ALICE = [CHAT_SCOPE, DOCS_SCOPE];
const sdk = () => new OpenAI({ apiKey: 'sk-test', baseURL: `${h.upstream.url}/v1` });

async function call(client: Client, agentId: string, message: string) {
  const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: agentId, message } });
  return { result, usage: result._meta?.[USAGE_META] as UsageMeta | undefined };
}

/** The SDK sends `body` again as a stream and reads its usage chunk: what the stand-in says that request spent. */
async function sdkUsage(body: NonNullable<UpstreamLogEntry['body']>): Promise<OpenAI.CompletionUsage | undefined> {
  const stream = await sdk().chat.completions.create({ ...(body as OpenAI.ChatCompletionCreateParamsStreaming), stream: true, stream_options: { include_usage: true } });
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
  return usage;
}

/** The `_meta` entry the sum of `usages` makes, every one known. */
function expected(usages: Array<OpenAI.CompletionUsage | undefined>): UsageMeta {
  const known = usages.map((usage) => {
    expect(usage).toBeDefined();
    return usage!;
  });
  return {
    input: known.reduce((sum, u) => sum + u.prompt_tokens, 0),
    output: known.reduce((sum, u) => sum + u.completion_tokens, 0),
    cachedInput: known.reduce((sum, u) => sum + (u.prompt_tokens_details?.cached_tokens ?? 0), 0),
    cacheWrite: 0,
    modelRequests: known.length,
    unknownRequests: 0,
    estimated: false,
  };
}

describe.each(['legacy', 'modern'] as const)('an openai agent on the %s wire', (era) => {
  test('asks for the usage chunk, and the result says what the SDK reads in it', async () => {
    const client = await h.connect(era, 'alice', ALICE);
    const message = `how much on ${era}?`;
    const { result, usage } = await call(client, 'plain', message);
    expect(result.isError).toBeFalsy();
    const [request] = await h.upstream.requestsFor(message);
    expect(request!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const read = await sdkUsage(request!.body!);
    expect(read).toMatchObject({ prompt_tokens: 100, completion_tokens: 20 });
    expect(usage).toEqual(expected([read]));
  });

  test('a tool loop with a nested agent sums every request of the call: both of the agent\'s steps and the nested agent\'s', async () => {
    const client = await h.connect(era, 'alice', ALICE);
    const message = script({ steps: [[{ name: '*agent', arguments: '$message' }]] });
    const { result, usage } = await call(client, 'ping', message);
    expect(result.isError).toBeFalsy();
    const requests = await h.upstream.requestsFor(message);
    expect(requests.map((r) => r.body!.model)).toEqual(['ping-model', 'pong-model', 'ping-model']);
    const read = [];
    for (const request of requests) read.push(await sdkUsage(request.body!));
    // The agent's second step sends three messages (two of them cached), so the steps differ and both count.
    expect(read.map((u) => u?.prompt_tokens)).toEqual([100, 100, 300]);
    expect(usage).toEqual(expected(read));
  });
});

describe('usage an upstream does not report is unknown, never zero', () => {
  test('an OpenAI-compatible server that ignores include_usage: one request of unknown usage', async () => {
    const client = await h.connect('modern', 'alice', ALICE);
    const message = 'fault:no-usage please';
    const { result, usage } = await call(client, 'plain', message);
    expect(result.isError).toBeFalsy();
    const [request] = await h.upstream.requestsFor(message);
    expect(await sdkUsage(request!.body!)).toBeUndefined();
    expect(usage).toEqual({ input: 0, output: 0, cachedInput: 0, cacheWrite: 0, modelRequests: 1, unknownRequests: 1, estimated: false });
  });

  test('an in-process agent that reports nothing (its tools called through the toolbox) counts one request of unknown usage', async () => {
    const client = await h.connect('modern', 'alice', ALICE);
    const { result, usage } = await call(client, 'clerk', 'file this');
    expect(result.isError).toBeFalsy();
    expect(usage).toEqual({ input: 0, output: 0, cachedInput: 0, cacheWrite: 0, modelRequests: 1, unknownRequests: 1, estimated: false });
  });

  test('an in-process agent that reports through turn.usage: its reports, summed', async () => {
    const client = await h.connect('legacy', 'alice', ALICE);
    const { result, usage } = await call(client, 'counter', 'count');
    expect(result.isError).toBeFalsy();
    expect(usage).toEqual({ input: 18, output: 8, cachedInput: 4, cacheWrite: 0, modelRequests: 2, unknownRequests: 0, estimated: false });
  });

  test('a failed turn says what it spent too', async () => {
    const client = await h.connect('modern', 'alice', ALICE);
    const { result, usage } = await call(client, 'plain', 'fault:500');
    expect(result.isError).toBe(true);
    expect(usage).toMatchObject({ modelRequests: 1, unknownRequests: 1 });
  });
});

describe('a call that runs no agent', () => {
  test('says nothing of usage', async () => {
    const client = await h.connect('modern', 'alice', ALICE);
    const result = await client.callTool({ name: 'docs.echo', arguments: { text: 'hi' } });
    expect(result._meta?.[USAGE_META]).toBeUndefined();
  });
});
