/**
 * `ai-sdk` agents end to end: official MCP SDK clients over HTTP on both wires, agent-mcp behind real bearer auth,
 * and a real AI SDK route (the `ai` package's streamText over ai/test's mock model, under Node 22) with a tool it
 * runs itself, a reasoning part and an error part.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROUTE_SECRET, startAiSdkRoute, type AiSdkRoute } from '../../support/ai-sdk.js';
import { CONTRACT_ERROR } from '../contract/stand-in.js';
import { describeAgentFormat } from '../contract/suite.js';
import { CHAT_SCOPE, startToolsHarness, type ToolsHarness } from '../tools-setup.js';
import { chat, noted } from './setup.js';

let route: AiSdkRoute;
let h: ToolsHarness;
beforeAll(async () => {
  route = await startAiSdkRoute({ errorBody: CONTRACT_ERROR.text });
  h = await startToolsHarness({
    agents: { route: { name: 'Route', format: 'ai-sdk', url: route.url, apiKeyEnv: 'ROUTE_KEY', body: { chatModel: 'mock' }, headersEnv: { 'x-route-secret': 'ROUTE_HEADER' } } },
    env: { ROUTE_KEY: 'route-key-0123456789', ROUTE_HEADER: 'header-from-a-variable' },
  });
}, 240_000);
afterAll(async () => {
  await h?.close();
  route?.stop();
});

const ALICE = [CHAT_SCOPE];
const requestsFor = async (text: string) =>
  (await route.log()).requests.filter((r) => r.body.messages.at(-1)?.parts.map((p) => p.text).join('') === text);

// The route this file started (it takes a minute on a fresh machine), lent to the contract. Isolation, an error part
// and cancellation (the cases this file checked itself before) are the contract's.
describeAgentFormat('ai-sdk', {
  progress: 'streams',
  usage: 'reported',
  start: async () => ({
    settings: { url: route.url },
    says: {
      reply: (message, turn) => `Route echo: ${message} (history ${2 * (turn - 1)}, weather 21 C)`,
      streamed: (marker) => `slow ${marker}`,
      long: (marker) => `slow ${marker} ${'and on '.repeat(10)}`,
      serverError: 'fault:secrets',
      errorInReply: { message: 'fault:error', secret: ROUTE_SECRET },
      huge: (bytes) => `fault:huge ${bytes}`,
    },
    received: async (text) => (await requestsFor(text)).length > 0,
    aborted: async (text) => (await requestsFor(text)).some((request) => request.closed),
  }),
});

describe.each(['legacy', 'modern'] as const)('an ai-sdk agent on the %s wire', (era) => {
  test('two turns: text streams as progress, the route\'s own tool is a progress line, reasoning never shows, the history goes up', async () => {
    const client = await h.connect(era, 'alice', ALICE);
    const first = await chat(client, 'route', `hello on ${era}`);
    expect(first.result.isError).toBeFalsy();
    expect(first.text).toBe(`Route echo: hello on ${era} (history 0, weather 21 C)`);
    expect(noted(first.progress, 'route: running its own tool weather…')).toBe(true);
    expect(first.progress.join('')).toContain('Route echo');
    expect(JSON.stringify(first)).not.toContain('secret reasoning');

    const second = await chat(client, 'route', `again on ${era}`, first.sessionId);
    expect(second.text).toBe(`Route echo: again on ${era} (history 2, weather 21 C)`);
    const [request] = await requestsFor(`again on ${era}`);
    // The UI messages useChat would send: the history from our store, then the new message; the extra body field.
    expect(request!.body).toMatchObject({ trigger: 'submit-message', chatModel: 'mock', messages: [
      { role: 'user', parts: [{ type: 'text', text: `hello on ${era}` }] },
      { role: 'assistant', parts: [{ type: 'text', text: first.text }] },
      { role: 'user', parts: [{ type: 'text', text: `again on ${era}` }] },
    ] });
    // The route's chat id is ours for this caller's conversation, not the client's session_id.
    expect(request!.body.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(request!.body.id).not.toBe(first.sessionId);
    expect(request!.secretHeader).toBe('header-from-a-variable');
    expect(request!.authorization).toBe('Bearer route-key-0123456789');
  });
});

describe('the route\'s failures', () => {
  test('a tool of the route that fails is a progress line; the route\'s answer still comes', async () => {
    const client = await h.connect('modern', 'alice', ALICE);
    const { text, progress } = await chat(client, 'route', 'fault:failtool');
    // Notes closer together than 100 ms come as one, the latest named and the others counted.
    expect(progress.some((line) => line.startsWith('route: its tool broken failed'))).toBe(true);
    expect(text).toBe('Route echo: fault:failtool (history 0, weather 21 C)');
  });
});
