/**
 * A question an agent asks its caller (turn.ask) on the 2025 wire waits no longer than the turn that asked it: when
 * the turn ends (here at AGENT_TURN_TIMEOUT_MS, its A2A task waiting for input), the wait ends with it, the caller is
 * told the question is withdrawn (`notifications/cancelled` on the call's stream, before the result), and nothing
 * is left reading the store for its answer. A real A2A agent (@a2a-js/sdk), the official MCP client as caller.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startA2aAgent, type A2aAgent } from '../../support/a2a-server.js';
import { CountingStore } from '../../support/counting-store.js';
import { connectHttp, createV2Client } from '../../support/sdk.js';
import { CHAT_SCOPE, startToolsHarness, type ToolsHarness } from '../tools-setup.js';
import { textOf } from '../setup.js';

const TURN_MS = 1_500;
let agent: A2aAgent;
let store: CountingStore;
let h: ToolsHarness;
beforeAll(async () => {
  agent = await startA2aAgent();
  store = new CountingStore();
  h = await startToolsHarness({ agents: { helper: { format: 'a2a', url: agent.url } }, env: { AGENT_TURN_TIMEOUT_MS: String(TURN_MS) }, store });
});
afterAll(async () => {
  await h.close();
  await agent.close();
});

describe('an agent\'s question to a 2025-wire caller who never answers', () => {
  test('ends with the turn at AGENT_TURN_TIMEOUT_MS: withdrawn before the result, no wait left when it arrives', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const client = createV2Client('legacy', { elicitation: {} });
    const asked: string[] = [];
    const withdrawn: string[] = [];
    client.setRequestHandler('elicitation/create', (request, ctx) => new Promise(() => {
      asked.push(String(request.params.message));
      ctx.mcpReq.signal.addEventListener('abort', () => void withdrawn.push(String(request.params.message)), { once: true });
    }));
    await connectHttp(client, h.server.mcpUrl, { authorization: `Bearer ${await h.token('alice', [CHAT_SCOPE])}` });
    store.peak = 0;
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'helper', message: 'ask me' } });
    const waitingAtEnd = store.waiting;
    const withdrawnAtEnd = withdrawn.length;
    warn.mockRestore();
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(`Agent helper: the turn ran longer than AGENT_TURN_TIMEOUT_MS (${TURN_MS} ms) and was stopped.`);
    expect(asked).toEqual(['helper asks: What is your name?']);
    // The question did wait (the count sees it), and no longer than the turn.
    expect(store.peak).toBeGreaterThanOrEqual(1);
    expect(waitingAtEnd).toBe(0);
    expect(withdrawnAtEnd).toBe(1);
    await client.close();
  });
});
