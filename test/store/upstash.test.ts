import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDefaultApp } from '../../lib/app.js';
import { selectStore } from '../../lib/store/select.js';
import { StoreUnavailableError } from '../../lib/store/types.js';
import { DEFAULT_STORE_TIMEOUT_MS, readStoreTimeout, UpstashStore } from '../../lib/store/upstash.js';
import { readUpstashConfig } from '../../lib/store/upstash-config.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';
import { startSwitchProxy, type SwitchProxy } from '../support/switch-proxy.js';
import { storeContract } from './contract.js';

let redis: SharedRedis;
let proxy: SwitchProxy;
beforeAll(async () => {
  redis = await startSharedRedis();
  proxy = await startSwitchProxy(redis.bridge.url);
});
afterAll(async () => {
  await proxy?.close();
  await redis?.stop();
});

const newStore = (prefix = `t${crypto.randomUUID().slice(0, 8)}:`, watchMs = 50) => new UpstashStore(redis.config, { prefix, watchMs });

storeContract('upstash (real redis-server behind the REST bridge)', () => newStore());

describe('upstash store across instances', () => {
  test('says it is shared by every instance', () => {
    expect(newStore().shared).toBe(true);
  });

  test('a write from another instance is seen at the watch tick', async () => {
    const prefix = `x${crypto.randomUUID().slice(0, 8)}:`;
    const [reader, writer] = [newStore(prefix), newStore(prefix)];
    const waiting = reader.watch(['k'], ([v]) => v !== undefined, { timeoutMs: 5_000 });
    await writer.set('k', 'from elsewhere', 10_000);
    expect(await waiting).toEqual(['from elsewhere']);
  });

  test('every waiter of an instance is served by one MGET per tick, whatever their number', async () => {
    const prefix = `b${crypto.randomUUID().slice(0, 8)}:`;
    const [reader, writer] = [newStore(prefix, 300), newStore(prefix)];
    await reader.get('warm-up');
    const abort = new AbortController();
    const before = redis.bridge.requests.length;
    const waits = Array.from({ length: 20 }, (_, i) => reader.watch([`cancel:${i}`], ([v]) => v !== undefined, { timeoutMs: 60_000, signal: abort.signal }));
    await writer.set('cancel:7', { at: 1 }, 10_000);
    expect(await waits[7]).toEqual([{ at: 1 }]);
    abort.abort();
    await Promise.all(waits);
    const reads = redis.bridge.requests.slice(before).filter((r) => r.commands.includes('MGET'));
    // The write was seen at the first tick: one read of all 20 keys, not 20 reads.
    expect(reads).toHaveLength(1);
  });

  test('a wait with no write from anywhere ends at its timeout', async () => {
    const store = newStore();
    expect(await store.watch(['quiet'], ([v]) => v !== undefined, { timeoutMs: 300 })).toBeUndefined();
  });
});

describe('a stalled store (it accepts requests and never answers)', () => {
  test('every operation fails as unavailable after STORE_TIMEOUT_MS, and a waiter whose tick read stalled sees a write once the store answers again', async () => {
    const prefix = `s${crypto.randomUUID().slice(0, 8)}:`;
    const store = new UpstashStore({ ...redis.config, url: proxy.url }, { prefix, watchMs: 100, timeoutMs: 300 });
    await store.get('warm-up');
    const waiting = store.watch(['k'], ([v]) => v !== undefined, { timeoutMs: 15_000 });
    proxy.setStalled(true);
    try {
      const turn = { queue: 'q', done: 'd' };
      const operations = [
        () => store.get('k'), () => store.getMany(['k', 'l']), () => store.set('k', 1, 10_000), () => store.claim('c', 1, 10_000),
        () => store.delete('k'), () => store.append('l', [1], 10_000), () => store.range('l', 0),
        () => store.enter({ turn: { ...turn, turnMs: 10_000 } }), () => store.leave({ turn: { ...turn, ticket: 1 } }),
      ];
      for (const operation of operations) await expect(operation()).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      proxy.setStalled(false);
    }
    await new UpstashStore(redis.config, { prefix }).set('k', 'from elsewhere', 10_000);
    expect(await waiting).toEqual(['from elsewhere']);
  });
});

describe('upstash store keys and values', () => {
  test('keys are namespaced by the prefix and every key expires', async () => {
    const prefix = `ns${crypto.randomUUID().slice(0, 8)}:`;
    const store = newStore(prefix);
    await store.set('value', { a: 1 }, 60_000);
    await store.append('list', ['x'], 60_000);
    const [keys] = await redis.direct.send([['KEYS', `${prefix}*`]]);
    // No write counters: a write leaves its own key and nothing else.
    expect((keys as string[]).sort()).toEqual([`${prefix}list`, `${prefix}value`]);
    const ttls = await redis.direct.send((keys as string[]).map((k) => ['PTTL', k]));
    for (const ttl of ttls) expect(ttl).toBeGreaterThan(0);
  });

  test('values keep their JSON types (a stored "42" stays a string)', async () => {
    const store = newStore();
    await store.set('s', '42', 10_000);
    await store.set('n', 42, 10_000);
    await store.set('u', 'héllo ✓', 10_000);
    await store.append('l', ['7'], 10_000);
    expect(await store.get('s')).toBe('42');
    expect(await store.get('n')).toBe(42);
    expect(await store.get('u')).toBe('héllo ✓');
    expect(await store.range('l', 0)).toEqual(['7']);
  });

  test('each operation is one round trip', async () => {
    const store = newStore();
    await store.get('warm-up');
    const count = async (operation: () => Promise<unknown>) => {
      const before = redis.bridge.requests.length;
      await operation();
      return redis.bridge.requests.length - before;
    };
    expect(await count(() => store.set('k', 1, 10_000))).toBe(1);
    expect(await count(() => store.get('k'))).toBe(1);
    expect(await count(() => store.append('l', [1, 2], 10_000))).toBe(1);
    expect(await count(() => store.getMany(['k', 'l']))).toBe(1);
    expect(await count(() => store.claim('c', 1, 10_000))).toBe(1);
    await store.enter({ read: ['k'] });
    expect(await count(() => store.enter({ once: { result: 'r', claim: 'c2', ttlMs: 10_000 }, turn: { queue: 'q', done: 'd', turnMs: 10_000 }, read: ['k'] }))).toBe(1);
    await store.leave({});
    expect(await count(() => store.leave({ set: [{ key: 'r', value: 1, ttlMs: 10_000 }], delete: ['c2'], turn: { queue: 'q', done: 'd', ticket: 1 } }))).toBe(1);
    expect(await count(() => store.range('l', 0))).toBe(1);
    expect(await count(() => store.delete('k'))).toBe(1);
  });
});

describe('upstash configuration', () => {
  test('STORE_TIMEOUT_MS: absent, a store operation may take 2500 ms; set, that many; the start-up line says so', () => {
    expect(readStoreTimeout({})).toBe(2_500);
    expect(DEFAULT_STORE_TIMEOUT_MS).toBe(2_500);
    expect(readStoreTimeout({ STORE_TIMEOUT_MS: '800' })).toBe(800);
    const { summary } = selectStore({ url: 'https://example.upstash.io', token: 't', urlVariable: 'UPSTASH_REDIS_REST_URL' }, { STORE_TIMEOUT_MS: '800' });
    expect(summary).toContain('within STORE_TIMEOUT_MS=800 ms fails as unavailable');
  });

  test.each(['soon', '0', '1.5'])('STORE_TIMEOUT_MS=%s stops start-up with a TypeError naming it', (value) => {
    expect(() => createDefaultApp({ STORE_TIMEOUT_MS: value })).toThrow(new TypeError(`STORE_TIMEOUT_MS must be a positive integer of milliseconds, got "${value}".`));
  });

  test('UPSTASH_REDIS_REST_* wins over KV_REST_API_*', () => {
    expect(readUpstashConfig({
      UPSTASH_REDIS_REST_URL: 'https://a.upstash.io', UPSTASH_REDIS_REST_TOKEN: 't1',
      KV_REST_API_URL: 'https://b.upstash.io', KV_REST_API_TOKEN: 't2',
    })).toEqual({ url: 'https://a.upstash.io', token: 't1', urlVariable: 'UPSTASH_REDIS_REST_URL' });
    expect(readUpstashConfig({ KV_REST_API_URL: 'https://b.upstash.io/', KV_REST_API_TOKEN: 't2' }))
      .toEqual({ url: 'https://b.upstash.io', token: 't2', urlVariable: 'KV_REST_API_URL' });
    expect(readUpstashConfig({})).toBeUndefined();
  });

  test.each([
    [{ UPSTASH_REDIS_REST_URL: 'https://a.upstash.io' }, 'UPSTASH_REDIS_REST_TOKEN must be set when UPSTASH_REDIS_REST_URL is.'],
    [{ KV_REST_API_TOKEN: 't' }, 'KV_REST_API_URL must be set when KV_REST_API_TOKEN is.'],
    [{ UPSTASH_REDIS_REST_URL: 'redis://a:6379', UPSTASH_REDIS_REST_TOKEN: 't' }, 'UPSTASH_REDIS_REST_URL must be an http(s) URL, got "redis://a:6379".'],
  ])('misconfiguration fails at start-up naming the variable: %j', (env, message) => {
    expect(() => readUpstashConfig(env)).toThrow(new TypeError(message));
  });
});
