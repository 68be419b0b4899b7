/**
 * A caller's token budget held by two agent-mcp processes sharing one real redis-server (through the Upstash REST
 * bridge): concurrent chat calls of one caller spread over both processes spend no more than the budget plus what was
 * already let through when it was crossed. A call learns of a crossing from its own next charge, so each running call
 * spends at most one model request past the crossing: with C calls at once and at most T tokens per model request,
 * the spent total is below budget + C × T. Afterwards both processes refuse the caller, with when to try again.
 * The window is a day, so the burst never straddles a window boundary.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RETRY_AFTER_META } from '../../lib/protocol/errors.js';
import { startInstances, type Instances } from '../support/instances.js';
import { post } from '../support/rpc.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';

const PROCESSES = 2;
const BUDGET = 10_000;
const CALLS = 8;
/** Each call asks for 4 model requests of 600 input and 400 output tokens: 32,000 tokens wanted in all. */
const PLAN = '4x600+400';
const PER_REQUEST = 1_000;
const LEGACY = { 'mcp-protocol-version': '2025-11-25' };

let redis: SharedRedis;
let instances: Instances;
beforeAll(async () => {
  redis = await startSharedRedis();
  instances = await startInstances(PROCESSES, {
    ...redis.bridge.env,
    INSTANCE_APP: 'metered',
    METERED_DELAY_MS: '40',
    MCP_STATE_SECRET: 'm'.repeat(32),
    TOKEN_BUDGET_CALLER: `${BUDGET}/1d`,
    RATE_LIMIT_TIMEOUT_MS: '30000',
  });
}, 60_000);
afterAll(async () => {
  await instances?.stop();
  await redis?.stop();
});

const chat = (id: number, message: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message } } });

/** The tokens the store counted in the current window of every token budget key. */
async function spentInStore(): Promise<number> {
  const window = Math.floor(Date.now() / 86_400_000);
  const [keys] = await redis.direct.send([['KEYS', 'agent-mcp:tb:*']]);
  const current = (keys as string[]).filter((key) => key.endsWith(`:${window}`));
  expect(current).toHaveLength(1);
  const [value] = await redis.direct.send([['GET', current[0]!]]);
  return Number(value);
}

describe('a caller\'s token budget, shared by two processes', () => {
  test(`${CALLS} concurrent calls of one caller wanting 32,000 tokens across ${PROCESSES} processes spend at least the budget of ${BUDGET} and less than budget + ${CALLS} × ${PER_REQUEST}`, async () => {
    const replies = await Promise.all(Array.from({ length: CALLS }, async (_, i) => {
      const response = await post(instances.urls[i % PROCESSES]!, chat(i, PLAN), LEGACY);
      expect(response.status).toBe(200);
      return response.json();
    }));
    expect(instances.output()).not.toContain('could not be counted');
    expect(replies.every((reply) => !('error' in reply))).toBe(true);
    const spent = await spentInStore();
    expect(spent).toBeGreaterThanOrEqual(BUDGET);
    expect(spent).toBeLessThan(BUDGET + CALLS * PER_REQUEST);
    const finished = replies.filter((reply) => !reply.result.isError).length;
    const stopped = replies.filter((reply) => reply.result.isError);
    for (const { result } of stopped) expect(result.content[0].text).toMatch(/Token budget spent: this caller may spend 10000 tokens every day \(TOKEN_BUDGET_CALLER\)/);
    console.info(`[token-budgets] ${CALLS} concurrent calls over ${PROCESSES} processes, budget ${BUDGET}: spent ${spent} `
      + `(${spent - BUDGET} past the budget; bound ${CALLS * PER_REQUEST}); ${finished} calls finished, ${stopped.length} stopped or refused`);
  });

  test('afterwards each process refuses the caller before its agent runs, with when to try again', async () => {
    const before = await spentInStore();
    for (const [i, url] of instances.urls.entries()) {
      const reply = await (await post(url, chat(100 + i, '1x1+1'), LEGACY)).json();
      expect(reply.result).toMatchObject({ isError: true, _meta: { [RETRY_AFTER_META]: expect.any(Number) } });
      expect(reply.result.content[0].text).toMatch(/^Token budget spent: this caller may spend 10000 tokens every day \(TOKEN_BUDGET_CALLER\)\. Retry after \d+ s\.$/);
    }
    expect(await spentInStore()).toBe(before);
  });

  test('each process logs the budget as shared on Upstash', () => {
    const lines = instances.output().split('\n').filter((line) => line.includes('rate limits:'));
    expect(lines).toHaveLength(PROCESSES);
    for (const line of lines) expect(line).toContain(`rate limits: ip off, principal off, tokens caller ${BUDGET}/1d, deployment off (shared on Upstash;`);
  });
});
