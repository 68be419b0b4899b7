/**
 * The usage page of a deployment with two instances sharing one real redis-server (through the Upstash REST bridge):
 * calls answered by either instance count once, and the page and its JSON show the same totals from either one. Each
 * process serves /usage through api/usage.ts as a deployment does (its own store client from the environment,
 * never open without sign-in).
 */

import { afterAll, beforeAll, expect, test } from 'vitest';
import { bearer, keyLine, mintTestKey } from '../support/api-keys.js';
import { startInstances, type Instances } from '../support/instances.js';
import { post } from '../support/rpc.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';

const admin = mintTestKey();
const alice = mintTestKey();
const CALLS = 6;
/** Each call: one model request of 300 input and 100 output tokens (metered-agent.ts). */
const PLAN = '1x300+100';
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };

let redis: SharedRedis;
let instances: Instances;
beforeAll(async () => {
  redis = await startSharedRedis();
  instances = await startInstances(2, {
    ...redis.bridge.env,
    INSTANCE_APP: 'metered',
    MCP_STATE_SECRET: 'u'.repeat(32),
    MCP_API_KEYS: [keyLine('admin', admin, 'scopes=usage:read'), keyLine('alice', alice)].join('\n'),
  });
}, 60_000);
afterAll(async () => {
  await instances?.stop();
  await redis?.stop();
});

const chat = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { agent_id: 'metered', message: PLAN } } });
const originOf = (mcpUrl: string) => mcpUrl.replace(/\/mcp$/, '');

test(`${CALLS} calls spread over two instances: either instance's page and JSON show all ${CALLS}, and the same tokens`, async () => {
  for (let i = 0; i < CALLS; i++) {
    const reply = await (await post(instances.urls[i % 2]!, chat(i + 1), { ...LEGACY, ...bearer(alice) })).json();
    expect(reply.result.isError).toBeFalsy();
  }
  for (const url of instances.urls.map(originOf)) {
    const json = await fetch(`${url}/usage.json?window=hour`, { headers: bearer(admin) });
    expect(json.status).toBe(200);
    expect((await json.json()).totals).toMatchObject({ calls: CALLS, inputTokens: CALLS * 300, outputTokens: CALLS * 100 });
    const html = await (await fetch(`${url}/usage?window=hour`, { headers: bearer(admin) })).text();
    expect(/data-key="calls">([\d,]+)</.exec(html)?.[1]).toBe(String(CALLS));
    expect(/data-key="inputTokens">([\d,]+)</.exec(html)?.[1]).toBe((CALLS * 300).toLocaleString('en-US'));
    // The shared store: no note that the numbers are one instance's.
    expect(html).not.toContain('memory');
  }
}, 60_000);

test('either instance refuses a caller without the right, and tells it nothing', async () => {
  for (const url of instances.urls.map(originOf)) {
    const response = await fetch(`${url}/usage.json`, { headers: bearer(alice) });
    expect(response.status).toBe(403);
    expect(await response.text()).not.toContain('totals');
  }
});
