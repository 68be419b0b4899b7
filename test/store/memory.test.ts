import { afterEach, describe, expect, test, vi } from 'vitest';
import { DEFAULT_MEMORY_BUDGET, MemoryStore, readMemoryBudget } from '../../lib/store/memory.js';
import { selectStore } from '../../lib/store/select.js';
import { storeContract } from './contract.js';

storeContract('memory', () => new MemoryStore({}, 50));

test('the memory store says it is not shared across instances', () => {
  expect(new MemoryStore().shared).toBe(false);
});

test('values are copies: mutating what was stored does not change the store', async () => {
  const store = new MemoryStore();
  const value = { list: [1] };
  await store.set('k', value, 1_000);
  value.list.push(2);
  expect(await store.get('k')).toEqual({ list: [1] });
});

test('expired entries nobody reads again are dropped as later writes go on, a few per write', async () => {
  const store = new MemoryStore();
  for (let i = 0; i < 1_000; i++) await store.set(`old:${i}`, i, 1);
  await new Promise((resolve) => setTimeout(resolve, 5));
  for (let i = 0; i < 600; i++) await store.set(`new:${i}`, i, 60_000);
  expect(store.size).toBe(600);
  expect(await store.get('new:599')).toBe(599);
});

describe('the memory store budget (MEMORY_STORE_MAX_BYTES, MEMORY_STORE_MAX_ENTRIES)', () => {
  afterEach(() => vi.restoreAllMocks());

  test('over its entry budget, the least recently used entry goes first; a read counts as use', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxEntries: 3 });
    await store.set('a', 1, 60_000);
    await store.set('b', 2, 60_000);
    await store.set('c', 3, 60_000);
    expect(await store.get('a')).toBe(1);
    await store.set('d', 4, 60_000);
    expect(store.size).toBe(3);
    expect(await store.get('b')).toBeUndefined();
    expect([await store.get('a'), await store.get('c'), await store.get('d')]).toEqual([1, 3, 4]);
  });

  test('over its byte budget, old conversations are evicted so the store stays within it', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxBytes: 1_000_000 });
    const message = 'm'.repeat(99_000);
    for (let i = 0; i < 100; i++) {
      await store.append(`history:${i}`, [{ role: 'user', content: message }], 86_400_000);
      await store.append(`history:${i}`, [{ role: 'assistant', content: 'ok' }], 86_400_000);
    }
    expect(store.bytes).toBeLessThanOrEqual(1_000_000);
    expect(store.size).toBe(10);
    expect(await store.range('history:99', 0)).toEqual([{ role: 'user', content: message }, { role: 'assistant', content: 'ok' }]);
    expect(await store.range('history:0', 0)).toEqual([]);
  });

  test('the operator is told once when eviction starts, with the variables to raise', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxEntries: 2, maxBytes: 10_000 });
    for (let i = 0; i < 50; i++) await store.set(`k${i}`, i, 60_000);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toBe('[agent-mcp] memory store over its budget (MEMORY_STORE_MAX_BYTES=10000, '
      + 'MEMORY_STORE_MAX_ENTRIES=2): evicted 1 least recently used entry since the last report; conversations and retried '
      + 'calls older than these are forgotten.');
  });

  test('a value larger than the whole budget is kept alone rather than lost as it is written', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxBytes: 100 });
    await store.set('small', 1, 60_000);
    await store.set('big', 'x'.repeat(500), 60_000);
    expect(await store.get('big')).toBe('x'.repeat(500));
    expect(await store.get('small')).toBeUndefined();
  });

  test('bad budget variables stop start-up naming the variable; absent ones mean the defaults', () => {
    expect(readMemoryBudget({})).toEqual(DEFAULT_MEMORY_BUDGET);
    expect(readMemoryBudget({ MEMORY_STORE_MAX_BYTES: '1048576', MEMORY_STORE_MAX_ENTRIES: '10' })).toEqual({ maxBytes: 1_048_576, maxEntries: 10 });
    expect(() => readMemoryBudget({ MEMORY_STORE_MAX_BYTES: '64MB' })).toThrow(new TypeError('MEMORY_STORE_MAX_BYTES must be a positive integer, got "64MB".'));
    expect(() => readMemoryBudget({ MEMORY_STORE_MAX_ENTRIES: '0' })).toThrow(TypeError);
  });

  test('start-up prints the budget with the store summary', () => {
    const { summary } = selectStore(undefined, { MEMORY_STORE_MAX_BYTES: '1000000' });
    expect(summary).toContain('store: memory, at most 1000000 bytes and 100000 entries, least recently used evicted first (MEMORY_STORE_MAX_BYTES, MEMORY_STORE_MAX_ENTRIES)');
  });
});
