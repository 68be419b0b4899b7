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

/** Asks a name, then asks the model for a word about it, and only then speaks. */
const asker: InProcessAgent = async function* ({ message, ask }) {
  const who = await ask.elicit({ message: `Who says "${message}"?`, requestedSchema: NAME });
  if (who.action !== 'accept') return yield 'Nobody, then.';
  const word = await ask.sample({ messages: [{ role: 'user', content: { type: 'text', text: `One word for ${String(who.content?.name)}` } }], maxTokens: 5 });
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

  test('an answer cannot be carried into another message: the requestState is bound to the call\'s arguments', async () => {
    const first = await (await postModern(server.mcpUrl, 4, 'tools/call', chat('hi'), { capabilities })).json();
    const replay = await (await postModern(server.mcpUrl, 5, 'tools/call', {
      ...chat('delete everything'), inputResponses: { q1: { action: 'accept', content: { name: 'grace' } } }, requestState: first.result.requestState,
    }, { capabilities })).json();
    expect(replay.error).toMatchObject({ code: -32602, message: 'requestState is invalid, expired, or was issued for another request.' });
  });
});
