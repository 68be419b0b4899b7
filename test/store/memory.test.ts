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
