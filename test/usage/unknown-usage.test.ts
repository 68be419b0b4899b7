/**
 * Formats whose protocol has no usage convention (A2A, the platform JSON contract): each message sent is one model
 * request of unknown usage in the result's `_meta`, never a zero, over real HTTP with the official MCP client.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USAGE_META } from '../../lib/usage/report.js';
import { startA2aAgent, type A2aAgent } from '../support/a2a-server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';
import { CHAT_SCOPE, startToolsHarness, type ToolsHarness } from '../agent/tools-setup.js';

let a2a: A2aAgent;
let platform: Upstream;
let h: ToolsHarness;
beforeAll(async () => {
  [a2a, platform] = await Promise.all([startA2aAgent(), startUpstream()]);
  h = await startToolsHarness({
    agents: {
      helper: { format: 'a2a', url: a2a.url },
      support: { format: 'platform', url: `${platform.url}/platform/chat` },
    },
  });
});
afterAll(async () => {
  await h.close();
  await a2a.close();
  platform.stop();
});

const UNKNOWN_ONE = { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, modelRequests: 1, unknownRequests: 1, estimated: false };

describe.each(['helper', 'support'])('agent %s', (agentId) => {
  test('one message, one request of unknown usage', async () => {
    const client = await h.connect('modern', 'alice', [CHAT_SCOPE]);
    const result = await client.callTool({ name: 'chat_with_agent', arguments: { agent_id: agentId, message: 'how much?' } });
    expect(result.isError).toBeFalsy();
    expect(result._meta?.[USAGE_META]).toEqual(UNKNOWN_ONE);
  });
});
