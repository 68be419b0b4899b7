import { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startAgentHarness, textOf, type AgentHarness } from './setup.js';

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness();
});
afterAll(() => h.close());

const call = (client: Client, args: Record<string, unknown>) => client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'echo', ...args } });

describe('retry safety', () => {
  test('an identical call that arrives while the first runs gets its result; the upstream runs once', async () => {
    const [a, b] = [await h.connect('legacy'), await h.connect('modern')];
    const message = `fault:slow same ${crypto.randomUUID()}`;
    const session_id = crypto.randomUUID();
    const [first, second] = await Promise.all([call(a, { message, session_id }), call(b, { message, session_id })]);
    expect(textOf(second)).toBe(textOf(first));
    expect(second.structuredContent).toEqual(first.structuredContent);
    expect(await h.upstream.requestsFor(message)).toHaveLength(1);
  });

  test('an identical call soon after the first finished gets the first result without a new upstream call', async () => {
    const client = await h.connect('legacy');
    const message = `again ${crypto.randomUUID()}`;
    const first = await call(client, { message });
    const again = await call(client, { message });
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(await h.upstream.requestsFor(message)).toHaveLength(1);
  });

  test('a failed call is not remembered: its retry runs again', async () => {
    const client = await h.connect('legacy');
    await call(client, { message: 'fault:500' });
    await call(client, { message: 'fault:500' });
    expect((await h.upstream.requestsFor('fault:500')).length).toBeGreaterThanOrEqual(2);
  });

  test('different messages to one session run one at a time, in arrival order', async () => {
    const client = await h.connect('legacy');
    const first = await call(client, { message: 'opening' });
    const session_id = (first.structuredContent as { session_id: string }).session_id;
    const slow = call(client, { message: `fault:slow first ${session_id}`, session_id });
    await h.upstream.waitFor((log) => log.some((e) => e.body?.messages?.at(-1)?.content === `fault:slow first ${session_id}`));
    const fast = call(client, { message: `then ${session_id}`, session_id });
    await Promise.all([slow, fast]);
    const [slowRequest] = await h.upstream.requestsFor(`fault:slow first ${session_id}`);
    const [fastRequest] = await h.upstream.requestsFor(`then ${session_id}`);
    // The second turn was sent only after the first finished, so it carries the first turn in its history.
    expect(fastRequest!.body!.messages!.map((m) => m.content)).toEqual([
      'opening', 'Echo: opening (history 0)',
      `fault:slow first ${session_id}`, `Echo: fault:slow first ${session_id} (history 2)`,
      `then ${session_id}`,
    ]);
    expect(fastRequest!.at).toBeGreaterThanOrEqual(slowRequest!.at);
  });
});

describe('conversations are isolated per principal', () => {
  test('the same session id under another principal starts from an empty history', async () => {
    const alice = new Client({ name: 'alice', version: '1' });
    const bob = new Client({ name: 'bob', version: '1' });
    await alice.connect(h.app.connectInProcess({ subject: 'alice', scopes: [] }));
    await bob.connect(h.app.connectInProcess({ subject: 'bob', scopes: [] }));
    const session_id = crypto.randomUUID();
    await call(alice, { message: 'alice speaks', session_id });
    const bobs = await call(bob, { message: 'bob speaks', session_id });
    expect(textOf(bobs)).toBe('Echo: bob speaks (history 0)');
    const alices = await call(alice, { message: 'alice again', session_id });
    expect(textOf(alices)).toBe('Echo: alice again (history 2)');
    await Promise.all([alice.close(), bob.close()]);
  });
});
