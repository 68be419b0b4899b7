/**
 * The token budgets' counter (lib/limits/token-counter.ts) and budgets (lib/limits/tokens.ts): the Lua script on a
 * real redis-server (through the REST bridge, the real @upstash/redis) and the memory counter give the same counts; a
 * read or a charge of every budget of a call is one command; a store fault is an answer, and RATE_LIMIT_ON_ERROR
 * decides what it does. Clocks are frozen, never slept on.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseRate } from '../../lib/limits/rate.js';
import { createMemoryTokenCounter, createUpstashTokenCounter, type TokenCounter } from '../../lib/limits/token-counter.js';
import { createTokenBudgets, msUntilRoom, readTokenSettings } from '../../lib/limits/tokens.js';
import { Caller } from '../../lib/server/caller.js';
import { UsageMeter } from '../../lib/usage/meter.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';
import { closedPort, countingClient } from '../support/upstash-commands.js';

let redis: SharedRedis;
beforeAll(async () => {
  redis = await startSharedRedis();
});
afterAll(() => redis.stop());

const HOUR = 3_600_000;
const prefix = () => `t${crypto.randomUUID().slice(0, 8)}:tb:`;
const rate = (text: string) => parseRate('test', text, 'tokens')!;

describe('the counter', () => {
  const counters: Array<[string, () => TokenCounter]> = [
    ['memory', () => createMemoryTokenCounter()],
    ['Upstash', () => createUpstashTokenCounter(redis.config, { prefix: prefix(), timeoutMs: 5_000 })],
  ];

  test.each(counters)('%s: a charge always counts, a read adds nothing, and a new window starts from nothing with the last one as its previous', async (_name, make) => {
    const counter = make();
    const keys = [{ key: 'a', windowMs: HOUR }, { key: 'b', windowMs: 24 * HOUR }];
    const t = 10 * 24 * HOUR + 5;
    expect(await counter.spend(keys, 0, t)).toEqual({ kind: 'counted', spent: [{ current: 0, previous: 0 }, { current: 0, previous: 0 }] });
    expect(await counter.spend(keys, 700, t)).toEqual({ kind: 'counted', spent: [{ current: 700, previous: 0 }, { current: 700, previous: 0 }] });
    // Past any budget: tokens already spent are counted all the same.
    expect(await counter.spend(keys, 1_000_000, t + 1)).toEqual({ kind: 'counted', spent: [{ current: 1_000_700, previous: 0 }, { current: 1_000_700, previous: 0 }] });
    expect(await counter.spend(keys.slice(0, 1), 0, t + HOUR)).toEqual({ kind: 'counted', spent: [{ current: 0, previous: 1_000_700 }] });
  });

  test('on Upstash a read or a charge of a call\'s budgets is one command, however many budgets it has', async () => {
    const { client, commands } = await countingClient(redis.config);
    const counter = createUpstashTokenCounter(redis.config, { prefix: prefix(), timeoutMs: 5_000, client });
    const keys = ['caller', 'agent', 'deployment'].map((key) => ({ key, windowMs: HOUR }));
    await counter.spend(keys, 0, Date.now());
    for (let i = 0; i < 3; i++) await counter.spend(keys, 100, Date.now());
    // EVALSHA each time; an EVAL once, the first time Redis sees the script.
    expect(commands.filter((c) => c === 'evalsha')).toHaveLength(4);
    expect(commands.filter((c) => c === 'eval').length).toBeLessThanOrEqual(1);
  });

  test('an unreachable Redis is an answer, not a throw', async () => {
    const counter = createUpstashTokenCounter({ ...redis.config, url: `http://127.0.0.1:${await closedPort()}` }, { prefix: prefix(), timeoutMs: 1_000 });
    expect(await counter.spend([{ key: 'a', windowMs: HOUR }], 10, Date.now())).toMatchObject({ kind: 'unavailable' });
  });
});

describe('when a spent budget has room again', () => {
  const budget = rate('1000/1h');
  test.each([
    ['spent in this window: when the next starts, and the previous weight has faded below the budget', { current: 2000, previous: 0 }, 0, HOUR + HOUR / 2],
    ['spent in this window exactly: when the next starts', { current: 1000, previous: 0 }, HOUR / 4, (3 * HOUR) / 4],
    ['spent in the last window: as its weight fades', { current: 0, previous: 2000 }, 0, HOUR / 2],
    ['partly in each: as the previous weight fades below what is left', { current: 500, previous: 1000 }, 0, HOUR / 2],
  ])('%s', (_case, spent, elapsed, ms) => {
    expect(msUntilRoom(spent, budget, 100 * HOUR + elapsed)).toBeCloseTo(ms, 0);
  });
});

describe('the budgets of a call', () => {
  const settings = readTokenSettings({ TOKEN_BUDGET_CALLER: '1000/1h' })!;
  const unavailable: TokenCounter = { spend: async () => ({ kind: 'unavailable', reason: 'Redis is down' }) };

  test('a store fault with RATE_LIMIT_ON_ERROR=open lets the call go on, uncharged', async () => {
    const start = createTokenBudgets(settings, unavailable, 'open')(new Caller(undefined, undefined, '10.0.0.1'));
    const meter = new UsageMeter();
    const outcome = await start('a', meter);
    expect('spend' in outcome).toBe(true);
    meter.record({ input: 5000, output: 5000 });
    if ('spend' in outcome) {
      await outcome.spend.end();
      expect(outcome.spend.stopped).toBeUndefined();
    }
  });

  test('a store fault with RATE_LIMIT_ON_ERROR=closed refuses the call before it runs, and stops one whose charge cannot be counted', async () => {
    const closed = createTokenBudgets(settings, unavailable, 'closed')(new Caller(undefined, undefined, '10.0.0.1'));
    expect(await closed('a', new UsageMeter())).toEqual({ refused: { message: 'The call was not run: the token budget cannot be checked; try again shortly.', retryAfterSeconds: 1 } });

    let fail = false;
    const memory = createMemoryTokenCounter();
    const flaky: TokenCounter = { spend: (keys, cost, now) => (fail ? unavailable.spend(keys, cost, now) : memory.spend(keys, cost, now)) };
    const meter = new UsageMeter();
    const outcome = await createTokenBudgets(settings, flaky, 'closed')(new Caller(undefined, undefined, '10.0.0.1'))('a', meter);
    if (!('spend' in outcome)) throw new Error('refused');
    fail = true;
    meter.record({ input: 1, output: 1 });
    await outcome.spend.settled();
    expect(outcome.spend.stopped).toEqual({ variable: 'RATE_LIMIT_ON_ERROR', reason: 'the token budget cannot be checked (RATE_LIMIT_ON_ERROR=closed); the turn was stopped.' });
  });

  test('an upstream that reports negative or missing usage cannot lower what was charged', async () => {
    const counter = createMemoryTokenCounter();
    const budgets = createTokenBudgets(settings, counter, 'open')(new Caller(undefined, undefined, '10.0.0.2'));
    const meter = new UsageMeter();
    const outcome = await budgets('a', meter);
    if (!('spend' in outcome)) throw new Error('refused');
    meter.record({ input: 600, output: 300 });
    meter.record({ input: -5000, output: 10 });
    meter.record({ input: 100 });
    await outcome.spend.end();
    const [spent] = await counter.spend([{ key: `${HOUR}:tokens:["ip","10.0.0.2"]`, windowMs: HOUR }], 0, Date.now()).then((o) => (o.kind === 'counted' ? o.spent : []));
    expect(spent).toMatchObject({ current: 900 });
  });
});
