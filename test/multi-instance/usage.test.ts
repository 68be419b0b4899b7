/**
 * The usage counters of a deployment with two instances (issue 46): two agent-mcp processes on one real redis-server
 * (through the Upstash REST bridge) count into the same buckets, so the numbers read back are the calls made on
 * either, whichever instance reads them, and a caller is one caller on both (its label is a MAC under the shared
 * MCP_STATE_SECRET).
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { UpstashStore } from '../../lib/store/upstash.js';
import { readUsage } from '../../lib/usage/read.js';
import { USAGE_META } from '../../lib/usage/report.js';
import { startInstances, type Instances } from '../support/instances.js';
import { post } from '../support/rpc.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';

const NO_SESSION = { 'mcp-protocol-version': '2025-11-25' };

let redis: SharedRedis;
let instances: Instances;
beforeAll(async () => {
  redis = await startSharedRedis();
  instances = await startInstances(2, { ...redis.bridge.env, INSTANCE_APP: 'metered', MCP_STATE_SECRET: 'u'.repeat(32) });
}, 60_000);
afterAll(async () => {
  await instances?.stop();
  await redis?.stop();
});

let id = 0;
const chat = (message: string) => ({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message } } });

describe('usage counters across two instances on one redis', () => {
  test('calls spread over both instances are counted once each, and both read the same totals', async () => {
    const plans = ['3x100+10', '1x50+5', '1xunknown', 'not a plan', '2x10+1', '1x1+1'];
    const replies = await Promise.all(plans.map(async (plan, i) => (await post(instances.urls[i % 2]!, chat(plan), NO_SESSION)).json()));
    const usage = replies.map((r) => r.result._meta[USAGE_META]);
    const expected = {
      calls: plans.length,
      errors: replies.filter((r) => r.result.isError).length,
      refusals: 0,
      inputTokens: usage.reduce((n, u) => n + u.input, 0),
      outputTokens: usage.reduce((n, u) => n + u.output, 0),
      unknownUsageCalls: usage.filter((u) => u.unknownRequests > 0).length,
      earnedUsd: '0',
    };
    expect(expected).toMatchObject({ errors: 1, inputTokens: 371, outputTokens: 38 });
    // Each instance's view of the store (the page reads through its own client).
    const [one, two] = [new UpstashStore(redis.config), new UpstashStore(redis.config)];
    let views = await Promise.all([readUsage(one, 'hour'), readUsage(two, 'hour')]);
    for (let i = 0; i < 500 && views.some((v) => v.totals.calls < plans.length); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      views = await Promise.all([readUsage(one, 'hour'), readUsage(two, 'hour')]);
    }
    for (const view of views) {
      expect(view.totals).toEqual(expected);
      expect(view.series.map((s) => s.agent)).toEqual(['metered']);
      // The one caller (an address) made every call, on either instance.
      expect(view.topCallers).toEqual([{ label: expect.stringMatching(/^ip:[0-9a-f]{8}$/), kind: 'address', calls: plans.length, inputTokens: 371, outputTokens: 38 }]);
    }
    expect(views[1]!.totals).toEqual(views[0]!.totals);
    for (const window of ['day', 'month'] as const) expect((await readUsage(one, window)).totals).toEqual(expected);
  });
});
