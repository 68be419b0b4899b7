import { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openSession, post } from '../support/rpc.js';
import { startAgentHarness, textOf, type AgentHarness } from './setup.js';

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness();
});
afterAll(() => h.close());

const call = (client: Client, args: Record<string, unknown>) => client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'echo', ...args } });

/** A raw legacy tools/call, so a test can send the very same request (id and arguments) again, as a retrying client does. */
const rawCall = (headers: Record<string, string>, id: number, args: Record<string, unknown>) =>
  post(h.server.mcpUrl, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { agent_id: 'echo', ...args } } }, headers)
    .then((r) => r.json());

describe('retry safety', () => {
  test('the same request sent again by the same client while the first runs gets its result; the upstream runs once', async () => {
    const session = await openSession(h.server.mcpUrl);
    const message = `fault:slow same ${crypto.randomUUID()}`;
    const [first, second] = await Promise.all([rawCall(session, 7, { message }), rawCall(session, 7, { message })]);
    expect(second.result).toEqual(first.result);
    expect(await h.upstream.requestsFor(message)).toHaveLength(1);
  });

  test('the same request sent again soon after the first finished gets the first result without a new upstream call', async () => {
    const session = await openSession(h.server.mcpUrl);
    const message = `again ${crypto.randomUUID()}`;
    const first = await rawCall(session, 3, { message });
    const again = await rawCall(session, 3, { message });
    expect(again.result.structuredContent).toEqual(first.result.structuredContent);
    expect(await h.upstream.requestsFor(message)).toHaveLength(1);
  });

  test('a new request with the same words runs again: a user who says "yes" twice is heard twice', async () => {
    const client = await h.connect('legacy');
    const opening = await call(client, { message: `opening ${crypto.randomUUID()}` });
    const session_id = (opening.structuredContent as { session_id: string }).session_id;
    const yes = `yes ${crypto.randomUUID()}`;
    await call(client, { message: yes, session_id });
    const second = await call(client, { message: yes, session_id });
    expect(textOf(second)).toBe(`Echo: ${yes} (history 4)`);
    expect(await h.upstream.requestsFor(yes)).toHaveLength(2);
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
  test('another principal cannot continue a conversation, even holding its id; its owner still can', async () => {
    const alice = new Client({ name: 'alice', version: '1' });
    const bob = new Client({ name: 'bob', version: '1' });
    await alice.connect(h.app.connectInProcess({ subject: 'alice', scopes: [] }));
    await bob.connect(h.app.connectInProcess({ subject: 'bob', scopes: [] }));
    const started = await call(alice, { message: 'alice speaks' });
    const session_id = (started.structuredContent as { session_id: string }).session_id;
    const bobs = await call(bob, { message: 'bob speaks', session_id });
    expect(bobs.isError).toBe(true);
    expect(textOf(bobs)).toContain('session_id is not a conversation this server started for you');
    expect(await h.upstream.requestsFor('bob speaks')).toHaveLength(0);
    const alices = await call(alice, { message: 'alice again', session_id });
    expect(textOf(alices)).toBe('Echo: alice again (history 2)');
    await Promise.all([alice.close(), bob.close()]);
  });
});
