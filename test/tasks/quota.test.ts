/**
 * The bound on tasks a caller holds (lib/tasks/quota.ts), on the memory store and on a real redis-server behind
 * the Upstash REST bridge, where the counters are taken by the store's atomic script.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { MemoryStore } from '../../lib/store/memory.js';
import type { Store } from '../../lib/store/types.js';
import { UpstashStore } from '../../lib/store/upstash.js';
import type { TaskQuota } from '../../lib/server/caller.js';
import { takeTaskSlot } from '../../lib/tasks/quota.js';
import { DEFAULT_TASK_SETTINGS } from '../../lib/tasks/settings.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';

const SETTINGS = { ...DEFAULT_TASK_SETTINGS, ttlMs: 1_000, maxPerCaller: 3, maxAnonymous: 2 };
/** The start of a window, so `T + n` stays in it for n < ttlMs. */
const T = 1_000_000 * SETTINGS.ttlMs;

let redis: SharedRedis;
beforeAll(async () => { redis = await startSharedRedis(); });
afterAll(() => redis?.stop());

const stores: Array<[string, () => Store]> = [
  ['memory', () => new MemoryStore()],
  ['redis (Upstash)', () => new UpstashStore(redis.config, { prefix: `q${crypto.randomUUID().slice(0, 8)}:` })],
];

/** The quota of a principal's caller key (or an issued session's), or, for '', of a caller with no identity at all. */
const quotaOf = (owner: string): TaskQuota => (owner === '' ? { anonymous: true } : { caller: owner, anonymous: false });

async function take(store: Store, owner: string | TaskQuota, times: number, now = T): Promise<boolean[]> {
  const quota = typeof owner === 'string' ? quotaOf(owner) : owner;
  const granted: boolean[] = [];
  for (let i = 0; i < times; i++) granted.push((await takeTaskSlot(store, quota, SETTINGS, now)).granted);
  return granted;
}

// First in the file: the first refusal of a process is logged at once, later ones are counted for a minute.
test('a refusal is one counted operator line naming the variable', async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const store = new MemoryStore();
  await take(store, 'zed', 4, T + 7 * SETTINGS.ttlMs);
  expect(warn.mock.calls.flat().join('\n')).toMatch(/could not become a task.*TASK_MAX_PER_CALLER=3/);
});

describe.each(stores)('on the %s store', (_name, newStore) => {
  test('a caller gets TASK_MAX_PER_CALLER tasks and is refused the next, naming the variable; another caller is not affected', async () => {
    const store = newStore();
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(await take(store, 'ada', 4)).toEqual([true, true, true, false]);
    expect(await takeTaskSlot(store, quotaOf('ada'), SETTINGS, T)).toMatchObject({ granted: false, max: 3, variable: 'TASK_MAX_PER_CALLER' });
    expect(await take(store, 'bob', 1)).toEqual([true]);
  });

  test('anonymous callers share TASK_MAX_ANONYMOUS', async () => {
    const store = newStore();
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(await take(store, '', 3)).toEqual([true, true, false]);
    expect(await takeTaskSlot(store, quotaOf(''), SETTINGS, T)).toMatchObject({ variable: 'TASK_MAX_ANONYMOUS', max: 2 });
  });

  test('a session without a principal is held to TASK_MAX_PER_CALLER inside the anonymous pool; a refusal by either holds nothing', async () => {
    const store = newStore();
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const session = (id: string): TaskQuota => ({ caller: id, anonymous: true });
    expect(await take(store, session('s1'), 1)).toEqual([true]);
    expect(await takeTaskSlot(store, session('s2'), SETTINGS, T)).toMatchObject({ granted: true });
    // The pool (2) is full: a third session is refused by it, and its own count is given back.
    expect(await takeTaskSlot(store, session('s3'), SETTINGS, T)).toMatchObject({ granted: false, variable: 'TASK_MAX_ANONYMOUS' });
    expect(await take(store, '', 1)).toEqual([false]);
    // A principal is not in the pool.
    expect(await take(store, 'ada', 3)).toEqual([true, true, true]);
    // Two windows on the pool's tasks are older than TASK_TTL_MS, and s3 gets one.
    expect(await take(store, session('s3'), 1, T + 2 * SETTINGS.ttlMs)).toEqual([true]);
  });

  test('refused requests do not count: a caller that kept asking gets its tasks back as soon as the old ones age out', async () => {
    const store = newStore();
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await take(store, 'ada', 3, T);
    expect(await take(store, 'ada', 5, T + SETTINGS.ttlMs)).toEqual([false, false, false, false, false]);
    // Two windows on, the three tasks are older than TASK_TTL_MS; the refusals left nothing behind.
    expect(await take(store, 'ada', 4, T + 2 * SETTINGS.ttlMs)).toEqual([true, true, true, false]);
  });

  test('a task counts through the next window, so a caller never holds more than its bound', async () => {
    const store = newStore();
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(await take(store, 'ada', 2, T + SETTINGS.ttlMs - 1)).toEqual([true, true]);
    expect(await take(store, 'ada', 2, T + SETTINGS.ttlMs)).toEqual([true, false]);
  });

  test('concurrent requests never grant more than the bound', async () => {
    const store = newStore();
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const granted = await Promise.all(Array.from({ length: 10 }, () => takeTaskSlot(store, quotaOf('ada'), SETTINGS, T)));
    expect(granted.filter((slot) => slot.granted)).toHaveLength(3);
  });
});
