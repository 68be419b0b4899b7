import { expect, test } from 'vitest';
import { MemoryStore } from '../../lib/store/memory.js';
import { storeContract } from './contract.js';

storeContract('memory', () => new MemoryStore());

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
