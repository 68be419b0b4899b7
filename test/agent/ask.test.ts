/**
 * An in-process agent asks the user (elicitation) and the client's model (sampling) mid-answer through
 * `turn.ask`, with the same code on both eras: over real HTTP with the official client, and with raw MRTR.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { createMcpHandler } from '../../api/mcp.js';
import { agentDefinitions, type InProcessAgent } from '../../lib/agent/index.js';
import { createApp } from '../../lib/app.js';
import { postModern } from '../support/rpc.js';
import { answerElicitation, answerSampling, connectHttp, createV2Client, firstText, type Era } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';

const NAME = { type: 'object' as const, properties: { name: { type: 'string' } }, required: ['name'] };

/** Times the asker got as far as speaking. */
let spoke = 0;

/** Asks a name, then asks the model for a word about it, and only then speaks. */
const asker: InProcessAgent = async function* ({ message, ask }) {
  const who = await ask.elicit({ message: `Who says "${message}"?`, requestedSchema: NAME });
  if (who.action !== 'accept') return yield 'Nobody, then.';
  const word = await ask.sample({ messages: [{ role: 'user', content: { type: 'text', text: `One word for ${String(who.content?.name)}` } }], maxTokens: 5 });
  spoke += 1;
  yield `Hello ${String(who.content?.name)}, ${word.content.text ?? '?'}`;
};

let server: TestServer;
beforeAll(async () => {
  const app = createApp({
    definitions: [agentDefinitions({}, [{ id: 'asker', name: 'Asker', description: 'Asks before it answers.', reply: asker }])],
    stateSecret: 's'.repeat(32),
    origin: { local: true, allowedOrigins: new Set() },
  });
  server = await startTestServer(createMcpHandler(app));
});
afterAll(async () => server.close());

async function caller(era: Era, capabilities: ClientCapabilities) {
  const client = createV2Client(era, capabilities);
  const elicited = capabilities.elicitation ? answerElicitation(client, () => ({ name: 'ada' })) : [];
  const sampled = capabilities.sampling ? answerSampling(client, 'brilliant') : [];
  await connectHttp(client, server.mcpUrl);
  return { client, elicited, sampled };
}

const chat = (message: string) => ({ name: 'chat_with_agent', arguments: { agent_id: 'asker', message } });

describe.each(['legacy', 'modern'] as const)('an in-process agent on the %s wire', (era) => {
  test('asks the user and the client\'s model mid-answer and answers with both', async () => {
    const { client, elicited, sampled } = await caller(era, { elicitation: {}, sampling: {} });
    const result = await client.callTool(chat('hi'));
    expect(firstText(result)).toBe('Hello ada, brilliant');
    expect(elicited).toMatchObject([{ message: 'Who says "hi"?' }]);
    expect(sampled).toMatchObject([{ messages: [{ content: { text: 'One word for ada' } }] }]);
    await client.close();
  });

  test('a client that did not declare elicitation gets a tool error naming it', async () => {
    const { client } = await caller(era, { sampling: {} });
    const result = await client.callTool(chat('hi'));
    expect(result.isError).toBe(true);
    expect(firstText(result)).toBe('The agent needs to ask the client (elicitation/create), but the client did not declare the elicitation capability.');
    await client.close();
  });
});

describe('MRTR rounds of an in-process agent', () => {
  const capabilities = { elicitation: {}, sampling: {} };

  test('each round asks the next question, carrying the earlier answers and the conversation in requestState', async () => {
    const first = await (await postModern(server.mcpUrl, 1, 'tools/call', chat('hi'), { capabilities })).json();
    expect(first.result).toMatchObject({ resultType: 'input_required', inputRequests: { q1: { method: 'elicitation/create', params: { message: 'Who says "hi"?' } } } });

    const second = await (await postModern(server.mcpUrl, 2, 'tools/call', {
      ...chat('hi'), inputResponses: { q1: { action: 'accept', content: { name: 'grace' } } }, requestState: first.result.requestState,
    }, { capabilities })).json();
    expect(second.result).toMatchObject({ resultType: 'input_required', inputRequests: { q2: { method: 'sampling/createMessage' } } });

    const third = await (await postModern(server.mcpUrl, 3, 'tools/call', {
      ...chat('hi'),
      inputResponses: { q2: { role: 'assistant', model: 'm', content: { type: 'text', text: 'bold' } } },
      requestState: second.result.requestState,
    }, { capabilities })).json();
    expect(third.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello grace, bold' }] });
  });

  /** The first two rounds of chat('hi'), answered; the third round's requestState. */
  async function toLastRound(id: number): Promise<string> {
    const first = await (await postModern(server.mcpUrl, id, 'tools/call', chat('hi'), { capabilities })).json();
    const second = await (await postModern(server.mcpUrl, id + 1, 'tools/call', {
      ...chat('hi'), inputResponses: { q1: { action: 'accept', content: { name: 'grace' } } }, requestState: first.result.requestState,
    }, { capabilities })).json();
    return second.result.requestState;
  }
  const lastRound = (id: number, requestState: string) => postModern(server.mcpUrl, id, 'tools/call', {
    ...chat('hi'), inputResponses: { q2: { role: 'assistant', model: 'm', content: { type: 'text', text: 'bold' } } }, requestState,
  }, { capabilities }).then((r) => r.json() as Promise<any>);

  test('the last round is single-use: replayed, its requestState is -32602 and the agent does not run again', async () => {
    const requestState = await toLastRound(10);
    const before = spoke;
    expect((await lastRound(12, requestState)).result).toMatchObject({ resultType: 'complete', content: [{ text: 'Hello grace, bold' }] });
    const replays = await Promise.all([lastRound(13, requestState), lastRound(14, requestState)]);
    for (const replay of replays) expect(replay.error).toEqual({ code: -32602, message: 'requestState was already used; start the request again without it.' });
    expect(spoke - before).toBe(1);
  });

  test('two uses of one last round at once: one is answered, the other refused', async () => {
    const requestState = await toLastRound(20);
    const both = await Promise.all([lastRound(22, requestState), lastRound(23, requestState)]);
    expect(both.map((reply) => (reply.result ? 'answered' : reply.error.code)).sort()).toEqual([-32602, 'answered']);
  });

  test('a requestState is opaque: neither the conversation id nor the answers can be read from it', async () => {
    const requestState = await toLastRound(30);
    const { result } = await lastRound(32, requestState);
    const conversation = result.structuredContent.session_id as string;
    const decoded = requestState.split('.').map((part) => Buffer.from(part, 'base64url').toString('latin1')).join('\n');
    for (const secret of [conversation, 'grace', 'answers']) expect(decoded).not.toContain(secret);
  });

  test('an answer cannot be carried into another message: the requestState is bound to the call\'s arguments', async () => {
    const first = await (await postModern(server.mcpUrl, 4, 'tools/call', chat('hi'), { capabilities })).json();
    const replay = await (await postModern(server.mcpUrl, 5, 'tools/call', {
      ...chat('delete everything'), inputResponses: { q1: { action: 'accept', content: { name: 'grace' } } }, requestState: first.result.requestState,
    }, { capabilities })).json();
    expect(replay.error).toMatchObject({ code: -32602, message: 'requestState is invalid, expired, or was issued for another request.' });
  });
});
