/**
 * What an ai-sdk agent's call spent: a real AI SDK route (the `ai` package's streamText over ai/test's mock model,
 * test/support/ai-sdk-route.mjs) sends its steps' total usage in the finish part's message metadata, with the one
 * line docs/agents.md shows; a route that does not counts as a request of unknown usage.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USAGE_META } from '../../lib/usage/report.js';
import { startAiSdkRoute, type AiSdkRoute } from '../support/ai-sdk.js';
import { CHAT_SCOPE, startToolsHarness, type ToolsHarness } from '../agent/tools-setup.js';

let route: AiSdkRoute;
let h: ToolsHarness;
beforeAll(async () => {
  route = await startAiSdkRoute();
  h = await startToolsHarness({
    agents: {
      route: { format: 'ai-sdk', url: route.url },
      silent: { format: 'ai-sdk', url: route.url, body: { sendUsage: false } },
    },
  });
}, 240_000);
afterAll(async () => {
  await h?.close();
  route?.stop();
});

describe.each(['legacy', 'modern'] as const)('an ai-sdk agent on the %s wire', (era) => {
  test('a route that sends its usage: the total of its two steps (the model\'s tool call, then its answer) is one request\'s', async () => {
    const client = await h.connect(era, 'alice', [CHAT_SCOPE]);
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'route', message: `spent on ${era}?` } });
    expect(result.isError).toBeFalsy();
    // The mock model reports 3 input and 5 output tokens a step, no cache; the route ran two steps.
    expect(result._meta?.[USAGE_META]).toEqual({ input: 6, output: 10, cachedInput: 0, cacheWrite: 0, modelRequests: 1, unknownRequests: 0, estimated: false });
  });

  test('a route that sends none: one request of unknown usage', async () => {
    const client = await h.connect(era, 'alice', [CHAT_SCOPE]);
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: 'silent', message: `silent on ${era}` } });
    expect(result.isError).toBeFalsy();
    expect(result._meta?.[USAGE_META]).toEqual({ input: 0, output: 0, cachedInput: 0, cacheWrite: 0, modelRequests: 1, unknownRequests: 1, estimated: false });
  });
});
