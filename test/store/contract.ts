/**
 * The behaviour every Store implementation must have; each implementation's test file runs it.
 * Keys get a random prefix so suites can share a real backend.
 */

import { describe, expect, test } from 'vitest';
import { takeValue, type Store } from '../../lib/store/types.js';

export function storeContract(name: string, makeStore: () => Store | Promise<Store>) {
  describe(`${name} store contract`, () => {
    const key = (k: string) => `test:${crypto.randomUUID()}:${k}`;

    test('a value set is read back until deleted', async () => {
      const store = await makeStore();
      const k = key('v');
      await store.set(k, { a: [1, 'two'] }, 10_000);
      expect(await store.get(k)).toEqual({ a: [1, 'two'] });
      await store.delete(k);
      expect(await store.get(k)).toBeUndefined();
    });

    test('a value read back is a copy: changing it does not change the store', async () => {
      const store = await makeStore();
      const k = key('copy');
      await store.set(k, { list: [1] }, 10_000);
      const read = await store.get<{ list: number[] }>(k);
      read!.list.push(2);
      expect(await store.get(k)).toEqual({ list: [1] });
      const l = key('copy-list');
      await store.append(l, { n: 1 }, 10_000);
      const [item] = await store.range<{ n: number }>(l, 0);
      item!.n = 2;
      expect(await store.range(l, 0)).toEqual([{ n: 1 }]);
    });

    test('a value expires after its ttl', async () => {
      const store = await makeStore();
      const k = key('ttl');
      await store.set(k, 'soon gone', 30);
      await new Promise((r) => setTimeout(r, 80));
      expect(await store.get(k)).toBeUndefined();
    });

    test('appends keep order and range reads from an index', async () => {
      const store = await makeStore();
      const k = key('list');
      expect(await store.append(k, 'a', 10_000)).toBe(1);
      expect(await store.append(k, 'b', 10_000)).toBe(2);
      expect(await store.append(k, { c: 3 }, 10_000)).toBe(3);
      expect(await store.range(k, 0)).toEqual(['a', 'b', { c: 3 }]);
      expect(await store.range(k, 2)).toEqual([{ c: 3 }]);
      expect(await store.range(key('none'), 0)).toEqual([]);
    });

    test('a waiter wakes when its key is written', async () => {
      const store = await makeStore();
      const k = key('wait');
      const waiting = store.waitForWrite(k, { timeoutMs: 5_000 });
      await store.set(k, 1, 10_000);
      expect(await waiting).toBe(true);
    });

    test('a waiter gives up at its timeout or when aborted', async () => {
      const store = await makeStore();
      expect(await store.waitForWrite(key('never'), { timeoutMs: 20 })).toBe(false);
      const abort = new AbortController();
      const waiting = store.waitForWrite(key('never'), { timeoutMs: 5_000, signal: abort.signal });
      abort.abort();
      expect(await waiting).toBe(false);
    });

    test('takeValue waits for a value, returns it once and removes it', async () => {
      const store = await makeStore();
      const k = key('take');
      const taking = takeValue(store, k, { timeoutMs: 5_000 });
      setTimeout(() => void store.set(k, { answer: 42 }, 10_000), 10);
      expect(await taking).toEqual({ answer: 42 });
      expect(await store.get(k)).toBeUndefined();
      expect(await takeValue(store, k, { timeoutMs: 20 })).toBeUndefined();
    });
  });
}
