/** The examples in examples/ run as written (they also compile under `npm run typecheck`). */

import { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { createDefaultApp } from '../../lib/app.js';
import exampleAdditions from '../../examples/tools/index.js';
import { askTheAgent } from '../../examples/in-process-client.js';
import { createFakeChain, serveFacilitator } from '../support/x402-chain.js';

const PAY_TO = '0x0000000000000000000000000000000000000001';
let client: Client | undefined;
afterEach(async () => { await client?.close(); client = undefined; });

async function connect(env: Record<string, string>) {
  client = new Client({ name: 'examples-test', version: '1.0.0' });
  await client.connect(createDefaultApp(env, exampleAdditions).connectInProcess({ subject: 'tester', scopes: [] }));
  return client;
}

describe('examples/in-process-agent.ts, listed in examples/tools/index.ts', () => {
  test('the added agent answers through chat_with_agent', async () => {
    const result = await (await connect({})).callTool({ name: 'chat_with_agent', arguments: { message: 'hello there', agent_id: 'shout' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ agent_id: 'shout', reply: 'HELLO THERE' });
  });

  test('it sits next to the agents of the environment, which still apply', async () => {
    const c = await connect({ AGENTS: '[{"id":"support","format":"platform","url":"https://agents.example.com/chat"}]' });
    const { resources } = await c.listResources();
    expect(resources.map((r) => r.uri).filter((uri) => uri.startsWith('agent://')).sort()).toEqual(['agent://greet', 'agent://shout', 'agent://support']);
  });

  // The x402 facilitator is real facilitator logic over HTTP on loopback, behind a fake chain (test/support/x402-chain.ts).
  let facilitator: Awaited<ReturnType<typeof serveFacilitator>>;
  beforeAll(async () => { facilitator = await serveFacilitator(createFakeChain().facilitator); });
  afterAll(() => facilitator?.close());

  test('with X402_PAY_TO set the agent tool stays behind x402: an unpaid call gets PaymentRequired', async () => {
    const result = await (await connect({ X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: facilitator.url })).callTool({ name: 'chat_with_agent', arguments: { message: 'hi', agent_id: 'shout' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ x402Version: 2, accepts: [expect.objectContaining({ payTo: PAY_TO })] });
  });
});

describe('examples/in-process-agent.ts greeter, listed in examples/tools/index.ts', () => {
  test('asks the user through elicitation and greets them by the answer', async () => {
    client = new Client({ name: 'examples-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ada' } }));
    await client.connect(createDefaultApp({}, exampleAdditions).connectInProcess({ subject: 'tester', scopes: [] }));
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { message: 'hi', agent_id: 'greet' } });
    expect(result.structuredContent).toMatchObject({ agent_id: 'greet', reply: 'Hello, Ada!' });
  });
});

describe('examples/deployment-skill.ts, listed in examples/tools/index.ts', () => {
  test('the deployment\'s skill lists first, its closings/ directory reads as a directory', async () => {
    client = new Client({ name: 'examples-test', version: '1.0.0' });
    await client.connect(createDefaultApp({}, exampleAdditions).connectInProcess());
    const any = z.looseObject({});
    const listed: any = await client.request({ method: 'skills/list', params: {} } as never, any);
    expect(listed.skills.map((s: any) => s.uri)).toEqual(['skill://acme/house-style/SKILL.md', 'skill://agents/shout/SKILL.md', 'skill://agents/greet/SKILL.md']);
    const closings: any = await client.request({ method: 'resources/directory/read', params: { uri: 'skill://acme/house-style/closings' } } as never, any);
    expect(closings.resources.map((r: any) => r.name)).toEqual(['formal.md', 'friendly.md']);
  });
});

describe('examples/in-process-client.ts', () => {
  test('calls the agent tool in-process and returns its reply', async () => {
    expect(await askTheAgent('ping')).toContain('[demo agent]');
  });
});
