/**
 * The per-IP limit held by four agent-mcp processes sharing one real redis-server (through the Upstash REST
 * bridge, with the real @upstash/ratelimit): concurrent calls spread over the processes are admitted exactly
 * up to the limit. The window is a day, so the burst never straddles a window boundary (the sliding window
 * would then count the previous window's share). The limiter's wait for Redis is long here (RATE_LIMIT_TIMEOUT_MS):
 * with a healthy Redis admissions are exact however slow the machine is, and a check that still gave up would
 * show as a fail-open line in the processes' log, which the test looks for.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startInstances, type Instances } from '../support/instances.js';
import { post } from '../support/rpc.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';

const PROCESSES = 4;
const LIMIT = 15;
const CALLS = 40;

let redis: SharedRedis;
let instances: Instances;
beforeAll(async () => {
  redis = await startSharedRedis();
  // The limiter's own traffic is counted here: the usage counters are off (what they cost refused requests is
  // test/store/cost.test.ts's: nothing until the next counted call).
  instances = await startInstances(PROCESSES, {
    ...redis.bridge.env, INSTANCE_APP: 'default', RATE_LIMIT_IP: `${LIMIT}/1d`, RATE_LIMIT_TIMEOUT_MS: '30000', USAGE_COUNTERS: 'off',
  });
}, 60_000);
afterAll(async () => {
  await instances?.stop();
  await redis?.stop();
});

describe('a per-IP limit shared by several processes', () => {
  test(`${CALLS} concurrent calls across ${PROCESSES} processes with limit ${LIMIT}: exactly ${LIMIT} admitted`, async () => {
    await redis.bridge.reset();
    const responses = await Promise.all(Array.from({ length: CALLS }, (_, i) =>
      post(instances.urls[i % PROCESSES]!, { jsonrpc: '2.0', id: i, method: 'ping' }, { 'mcp-protocol-version': '2025-11-25' })));
    expect(instances.output()).not.toContain('could not be checked');
    const statuses = responses.map((r) => r.status);
    const admitted = statuses.filter((s) => s === 200).length;
    const refused = statuses.filter((s) => s === 429).length;
    expect({ admitted, refused }).toEqual({ admitted: LIMIT, refused: CALLS - LIMIT });

    const refusal = responses.find((r) => r.status === 429)!;
    expect(refusal.headers.get('ratelimit-policy')).toBe(`"ip";q=${LIMIT};w=86400`);
    expect(Number(refusal.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refusal.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: 429, message: expect.stringContaining(`at most ${LIMIT} requests per IP address every day`) } });

    // Round trips, counted where they arrive. @upstash/redis batches commands issued in the same tick into one
    // /pipeline request, so a burst costs fewer HTTP requests than calls; per call it is one EVALSHA command
    // (plus an EVAL after a NOSCRIPT while Redis has not cached the script), and none for a call the process
    // already knows to be blocked (the library's ephemeral cache).
    const limiterRequests = redis.bridge.requests.filter((r) => r.commands.some((c) => c.startsWith('EVAL')));
    const commands = limiterRequests.flatMap((r) => r.commands);
    const evalsha = commands.filter((c) => c === 'EVALSHA').length;
    const evals = commands.filter((c) => c === 'EVAL').length;
    expect(commands.every((c) => c === 'EVALSHA' || c === 'EVAL')).toBe(true);
    expect(evalsha).toBeLessThanOrEqual(CALLS);
    expect(evals).toBeLessThanOrEqual(evalsha);
    console.info(`[rate-limits] ${CALLS} concurrent calls over ${PROCESSES} processes, limit ${LIMIT}: admitted ${admitted}, refused ${refused}; `
      + `limiter traffic: ${limiterRequests.length} HTTP round trips carrying ${evalsha} EVALSHA + ${evals} EVAL`);
  });

  test('a process that has refused a caller refuses it again without a Redis round trip until the window ends', async () => {
    const pingAll = () => Promise.all(instances.urls.map(async (url) =>
      (await post(url, { jsonrpc: '2.0', id: 'again', method: 'ping' }, { 'mcp-protocol-version': '2025-11-25' })).status));
    expect(await pingAll()).toEqual(instances.urls.map(() => 429));
    const before = redis.bridge.requests.length;
    expect(await pingAll()).toEqual(instances.urls.map(() => 429));
    expect(redis.bridge.requests.length - before).toBe(0);
  });

  test('each process logs that its limits are shared on Upstash', () => {
    const lines = instances.output().split('\n').filter((line) => line.includes('rate limits:'));
    expect(lines).toHaveLength(PROCESSES);
    for (const line of lines) expect(line).toContain(`rate limits: ip ${LIMIT}/1d, principal off (shared on Upstash; on a Redis fault: fail open)`);
  });
});
