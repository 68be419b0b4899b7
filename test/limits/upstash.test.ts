/**
 * The shared limiter with the real @upstash/ratelimit and @upstash/redis against a real redis-server (through
 * the REST bridge), its cost in round trips (counted by wrapping the real client, and at the bridge), and
 * the failure policy when Redis is unreachable or slow.
 */

import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { createLimitCheck, createLimitCount } from '../../lib/limits/check.js';
import { createLimitsFromEnv } from '../../lib/limits/index.js';
import { createUpstashLimiter, LIMIT_TIMEOUT_MS } from '../../lib/limits/upstash.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';
import { closedPort, countingClient } from '../support/upstash-commands.js';

let redis: SharedRedis;
beforeAll(async () => {
  redis = await startSharedRedis();
});
afterAll(() => redis.stop());
afterEach(() => vi.restoreAllMocks());

const prefix = () => `t${crypto.randomUUID().slice(0, 8)}:rl`;

describe('the sliding window on real Redis', () => {
  test('admits the limit, then denies; remaining counts down', async () => {
    const limiter = createUpstashLimiter({ limit: 3, windowMs: 86_400_000, text: '3/1d' }, redis.config, { prefix: prefix() });
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push(await limiter.limit('caller'));
    expect(outcomes.map((o) => o.kind)).toEqual(['allowed', 'allowed', 'allowed', 'denied']);
    expect(outcomes.map((o) => ('remaining' in o ? o.remaining : undefined))).toEqual([2, 1, 0, 0]);
  });
});

describe('round trips per check', () => {
  test('one EVALSHA per check once Redis has the script; EVALSHA + EVAL the first time; none when known blocked', async () => {
    await redis.bridge.reset();
    await redis.direct.send([['SCRIPT', 'FLUSH']]);
    const { client, commands } = await countingClient(redis.config);
    const limiter = createUpstashLimiter({ limit: 2, windowMs: 86_400_000, text: '2/1d' }, redis.config, { prefix: prefix(), client });
    const cost = async () => {
      const [before, trips] = [commands.length, redis.bridge.requests.length];
      const outcome = await limiter.limit('counted');
      return { kind: outcome.kind, commands: commands.slice(before), roundTrips: redis.bridge.requests.length - trips };
    };
    // A script the Redis has never run: EVALSHA answers NOSCRIPT, the library falls back to EVAL.
    const first = await cost();
    expect(first).toEqual({ kind: 'allowed', commands: ['evalsha', 'eval'], roundTrips: 2 });
    expect(await cost()).toEqual({ kind: 'allowed', commands: ['evalsha'], roundTrips: 1 });
    expect(await cost()).toEqual({ kind: 'denied', commands: ['evalsha'], roundTrips: 1 });
    expect(await cost()).toEqual({ kind: 'denied', commands: [], roundTrips: 0 });
  });
});

describe('a check of several requests (a legacy batch)', () => {
  test('counts them all in one round trip: within the budget allowed, beyond it denied', async () => {
    const { client, commands } = await countingClient(redis.config);
    const limiter = createUpstashLimiter({ limit: 5, windowMs: 86_400_000, text: '5/1d' }, redis.config, { prefix: prefix(), client });
    expect(await limiter.limit('batch', 4)).toMatchObject({ kind: 'allowed', remaining: 1 });
    expect(commands).toHaveLength(1);
    expect(await limiter.limit('batch', 2)).toMatchObject({ kind: 'denied' });
    expect((await limiter.limit('other', 6)).kind).toBe('denied');
  });
});

describe('failure policy (Redis unreachable or slow)', () => {
  test('the shared limit bound is at most about a second per check', () => {
    expect(LIMIT_TIMEOUT_MS).toBeLessThanOrEqual(1_000);
  });

  test('an unreachable Redis makes the check unavailable instead of throwing', async () => {
    const down = { ...redis.config, url: `http://127.0.0.1:${await closedPort()}` };
    const limiter = createUpstashLimiter({ limit: 1, windowMs: 60_000, text: '1/1m' }, down, { prefix: prefix() });
    expect(await limiter.limit('x')).toMatchObject({ kind: 'unavailable', reason: expect.any(String) });
  });

  test('fail open (the default): an unreachable Redis lets requests through, with one warning in the log', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const down = { ...redis.config, url: `http://127.0.0.1:${await closedPort()}` };
    const limits = createLimitsFromEnv({ RATE_LIMIT_PRINCIPAL: '1/1m' }, down, { prefix: prefix() })!;
    const caller = { subject: 'someone', scopes: [] };
    expect(await limits.byPrincipal!(caller)).toBeUndefined();
    expect(await limits.byPrincipal!(caller)).toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/the principal rate limit could not be checked \(.+\); letting requests through \(RATE_LIMIT_ON_ERROR=open\): 1 request admitted unchecked since the last report\./);
  });

  test('an API key\'s own rate is one count for every instance sharing the store', async () => {
    const shared = prefix();
    const ownRates = new Map([['key:ci', { limit: 2, windowMs: 60_000, text: '2/1m' }]]);
    const [a, b] = [createLimitsFromEnv({}, redis.config, { prefix: shared, ownRates })!, createLimitsFromEnv({}, redis.config, { prefix: shared, ownRates })!];
    const ci = { kind: 'api-key', subject: 'ci', scopes: [] };
    expect(await a.byPrincipal!(ci)).toBeUndefined();
    expect(await b.byPrincipal!(ci)).toBeUndefined();
    expect((await a.byPrincipal!(ci))?.status).toBe(429);
    expect((await b.byPrincipal!(ci))?.status).toBe(429);
  });

  test('fail closed: an unreachable Redis answers 503 with Retry-After', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const down = { ...redis.config, url: `http://127.0.0.1:${await closedPort()}` };
    const limits = createLimitsFromEnv({ RATE_LIMIT_IP: '1/1m', RATE_LIMIT_ON_ERROR: 'closed' }, down, { prefix: prefix() })!;
    const refused = (await limits.byIp!(new Request('http://localhost/mcp', { method: 'POST' })))!;
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
  });

  test('a slow Redis is bypassed: the check gives up at its timeout and the request goes through', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const rate = { limit: 1, windowMs: 60_000, text: '1/1m' };
    const limiter = createUpstashLimiter(rate, redis.config, { prefix: prefix() });
    expect((await limiter.limit('warm')).kind).toBe('allowed');
    redis.bridge.setDelay(5_000);
    try {
      const check = createLimitCheck('ip', rate, createLimitCount('ip', limiter, 'open'));
      expect(await limiter.limit('slow')).toMatchObject({ kind: 'unavailable' });
      expect(await check('slow')).toBeUndefined();
    } finally {
      redis.bridge.setDelay(0);
    }
  });
});
