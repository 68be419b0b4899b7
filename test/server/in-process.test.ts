/**
 * The official v2 client over `app.connectInProcess(principal)`: the same dispatcher and store as the HTTP
 * endpoint, no network. The principal given here must reach tools exactly as a verified token's would.
 */

import { type Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, test } from 'vitest';
import { createApp } from '../../lib/app.js';
import type { Principal } from '../../lib/server/context.js';
import type { ToolDefinition } from '../../lib/server/registry.js';
import { conformanceMrtrTools } from '../fixtures/conformance-mrtr.js';
import { conformanceTools } from '../fixtures/conformance-tools.js';
import { answerElicitation, createV2Client, firstText, type Era } from '../support/sdk.js';

const whoami: ToolDefinition = {
  name: 'whoami',
  description: 'Returns the principal the call runs as, and the era it arrived on.',
  run: (_args, ctx) => ({
    content: [{ type: 'text', text: ctx.principal?.subject ?? '(anonymous)' }],
    structuredContent: { principal: ctx.principal ?? null, era: ctx.era },
  }),
};

const app = createApp({
  definitions: [{ tools: [whoami, ...conformanceTools, ...conformanceMrtrTools] }],
  stateSecret: 'x'.repeat(32),
  origin: { local: true, allowedOrigins: new Set() },
});

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** A v2 client of `era` connected in-process as `principal`; closed after the test. */
async function connect(era: Era, principal?: Principal, configure?: (client: Client) => void) {
  const client = createV2Client(era, { elicitation: {} });
  configure?.(client);
  const transport = app.connectInProcess(principal);
  clients.push(client);
  await client.connect(transport);
  return { client, transport };
}

const ALICE: Principal = { subject: 'user-alice', clientId: 'client-42', scopes: ['mcp:tools', 'agents:chat'] };

describe('the v2 SDK client in-process', () => {
  test('an in-process client lists and calls tools with no network hop', async () => {
    const { client } = await connect('legacy', ALICE);
    expect(client.getProtocolEra()).toBe('legacy');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['whoami', 'test_simple_text']));
    const result = await client.callTool({ name: 'test_simple_text' });
    expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
  });

  test.each(['legacy', 'modern'] as const)('the principal reaches the tool exactly as given, on the %s era', async (era) => {
    const { client } = await connect(era, ALICE);
    expect(client.getProtocolEra()).toBe(era);
    const result = await client.callTool({ name: 'whoami' });
    expect(firstText(result)).toBe('user-alice');
    expect(result.structuredContent).toEqual({ principal: ALICE, era });
  });

  test('without a principal the tool sees an anonymous caller', async () => {
    const { client } = await connect('legacy');
    const result = await client.callTool({ name: 'whoami' });
    expect(result.structuredContent).toEqual({ principal: null, era: 'legacy' });
  });

  test('progress notifications arrive in-process in increasing order', async () => {
    const { client } = await connect('legacy', ALICE);
    const progress: number[] = [];
    const result = await client.callTool({ name: 'test_tool_with_progress' }, { onprogress: (p) => progress.push(p.progress) });
    expect(firstText(result)).toBe('Progress tool completed');
    expect(progress).toEqual([0, 50, 100]);
  });

  test('an elicitation goes out in-process and the answer, sent back through the transport, reaches the call', async () => {
    let asked: any[] = [];
    const { client, transport } = await connect('legacy', ALICE, (c) => {
      asked = answerElicitation(c, () => ({ username: 'alice', email: 'alice@example.com' }));
    });
    const sent: any[] = [];
    const send = transport.send.bind(transport);
    transport.send = async (message) => {
      sent.push(message);
      return send(message);
    };

    const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Confirm your details' } });

    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ message: 'Confirm your details' });
    expect(result.isError).toBeFalsy();
    expect(firstText(result)).toContain('"username":"alice"');
    expect(firstText(result)).toContain('"email":"alice@example.com"');
    const answers = sent.filter((m) => !('method' in m) && 'result' in m);
    expect(answers).toHaveLength(1);
    expect(answers[0].result).toMatchObject({ action: 'accept' });
  });

  test('an MRTR elicitation is fulfilled in-process on the modern era', async () => {
    const { client } = await connect('modern', ALICE, (c) => {
      answerElicitation(c, () => ({ name: 'Alice' }));
    });
    const result = await client.callTool({ name: 'test_input_required_result_elicitation' });
    expect(firstText(result)).toBe('Hello, Alice!');
  });
});
