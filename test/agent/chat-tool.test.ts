import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAgentHarness, textOf, UPSTREAM_KEY, type AgentHarness } from './setup.js';

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness();
});
afterAll(() => h.close());

describe.each(['legacy', 'modern'] as const)('chat_with_agent on the %s wire', (era) => {
  test('the tool publishes its input and output schemas and names the agents', async () => {
    const client = await h.connect(era);
    const { tools } = await client.listTools();
    const chat = tools.find((t) => t.name === 'chat_with_agent')!;
    // message may be left out only to collect a reply still being written (docs/agents.md "Slow agents").
    expect(chat.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' }, session_id: { type: 'string' }, handle: { type: 'string' }, cancel: { type: 'boolean' } } });
    expect(chat.inputSchema).not.toHaveProperty('required');
    expect(chat.outputSchema).toMatchObject({ required: ['agent_id', 'session_id', 'reply'] });
    expect(chat.description).toContain('echo (Echo');
  });

  test('a reply comes back as text and as structured content, streamed as progress', async () => {
    const client = await h.connect(era);
    const progress: Array<{ progress: number; message?: string }> = [];
    const message = `hello from ${era} ${crypto.randomUUID()}`;
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'echo', message } },
      { onprogress: (p) => progress.push(p) });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(`Echo: ${message} (history 0)`);
    expect(result.structuredContent).toMatchObject({ agent_id: 'echo', reply: `Echo: ${message} (history 0)`, session_id: expect.any(String) });
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
    expect(progress.map((p) => p.message).join('')).toContain('Echo:');
  });

  test('history is kept per session: the upstream receives the earlier turns', async () => {
    const client = await h.connect(era);
    const first = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'echo', message: `one ${era}` } });
    const sessionId = (first.structuredContent as { session_id: string }).session_id;
    const second = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'echo', message: `two ${era}`, session_id: sessionId } });
    expect(textOf(second)).toBe(`Echo: two ${era} (history 2)`);
    const [request] = await h.upstream.requestsFor(`two ${era}`);
    expect(request!.body!.messages!.map((m) => m.content)).toEqual([`one ${era}`, `Echo: one ${era} (history 0)`, `two ${era}`]);
  });

  test('the platform adapter lets the upstream keep history under an id derived from ours, never the client\'s', async () => {
    const client = await h.connect(era);
    const opening = `first ${era} ${crypto.randomUUID()}`;
    const first = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'plat', message: opening } });
    const session_id = (first.structuredContent as { session_id: string }).session_id;
    const second = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'plat', message: 'second', session_id } });
    expect(textOf(second)).toBe('Platform support-bot turn 2: second');
    const [firstRequest] = await h.upstream.requestsFor(opening);
    const upstreamId = firstRequest!.body!.session_id;
    expect(upstreamId).toEqual(expect.any(String));
    expect(upstreamId).not.toBe(session_id);
    const requests = (await h.upstream.log()).filter((e) => e.body?.session_id === upstreamId);
    expect(requests.map((e) => e.body!.messages)).toEqual([[{ role: 'user', content: opening }], [{ role: 'user', content: 'second' }]]);
  });
});

describe('the upstream connection', () => {
  test('a body that ends after [DONE] is read to its end, so sequential calls reuse one connection', async () => {
    const client = await h.connect('legacy');
    const messages = [1, 2, 3].map((n) => `late-end ${n} ${crypto.randomUUID()}`);
    for (const message of messages) {
      await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'echo', message } });
      await new Promise((resolve) => setTimeout(resolve, 300)); // the body's end arrives 20 ms after the reply
    }
    const ports = await Promise.all(messages.map(async (message) => (await h.upstream.requestsFor(message))[0]!.port));
    expect(new Set(ports).size).toBe(1);
  });
});

describe('credentials', () => {
  test("the client's bearer token is never forwarded; the upstream gets the configured key", async () => {
    const client = await h.connect('legacy', { authorization: 'Bearer client-token-must-not-leak' });
    const message = `credentials ${crypto.randomUUID()}`;
    await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'echo', message } });
    const [request] = await h.upstream.requestsFor(message);
    expect(request!.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    const platform = await h.connect('legacy', { authorization: 'Bearer client-token-must-not-leak' });
    await platform.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'plat', message } });
    const platformRequest = (await h.upstream.requestsFor(message)).find((e) => e.path === '/platform/chat');
    expect(platformRequest!.authorization).toBeUndefined();
  });
});

describe('agents are discoverable as agent:// resources', () => {
  test('each agent has a profile with name, description, upstream kind and whether it is paid', async () => {
    const client = await h.connect('modern');
    const { resources } = await client.listResources();
    // Skill files (skill://agents/…) are resources too; the profiles are the agent:// ones.
    expect(resources.map((r) => r.uri).filter((uri) => uri.startsWith('agent://'))).toEqual(['agent://echo', 'agent://plat', 'agent://quick', 'agent://gone']);
    const { contents } = await client.readResource({ uri: 'agent://plat' });
    expect(JSON.parse((contents[0] as { text: string }).text)).toEqual({
      id: 'plat', name: 'Platform', description: expect.any(String), kind: 'platform', paid: false,
    });
  });

  test('an unknown agent is an isError result listing the known ones', async () => {
    const client = await h.connect('legacy');
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'nobody', message: 'hi' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('echo, plat, quick, gone');
  });
});
