/**
 * The behaviour every Store implementation must have; each implementation's test file runs it.
 * Keys get a random prefix so suites can share a real backend. Stores are made with a short watch tick (the
 * tick only bounds how soon a change made elsewhere is seen).
 */

import { describe, expect, test } from 'vitest';
import { takeValue, type Store } from '../../lib/store/types.js';

/**
 * `makeSmallStore`: a store of at most about 1 MB where the implementation keeps a budget of its own (memory); where
 * room is the database's (Upstash), the same store. The budget promises below hold either way.
 */
export function storeContract(name: string, makeStore: () => Store | Promise<Store>, makeSmallStore = makeStore) {
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
      await store.append(l, [{ n: 1 }], 10_000);
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
      expect(await store.append(k, ['a'], 10_000)).toBe(1);
      expect(await store.append(k, ['b', { c: 3 }], 10_000)).toBe(3);
      expect(await store.range(k, 0)).toEqual(['a', 'b', { c: 3 }]);
      expect(await store.range(k, 2)).toEqual([{ c: 3 }]);
      expect(await store.range(key('none'), 0)).toEqual([]);
    });

    test('getMany reads several values at once; absent keys and lists read as undefined', async () => {
      const store = await makeStore();
      const [a, b, list] = [key('a'), key('b'), key('list')];
      await store.set(a, { a: 1 }, 10_000);
      await store.append(list, ['x'], 10_000);
      expect(await store.getMany([a, b, list])).toEqual([{ a: 1 }, undefined, undefined]);
      expect(await store.getMany([])).toEqual([]);
    });

    test('a claim is taken once until it is deleted or expires', async () => {
      const store = await makeStore();
      const k = key('claim');
      expect(await store.claim(k, 1, 10_000)).toBe(true);
      expect(await store.claim(k, 1, 10_000)).toBe(false);
      await store.delete(k);
      expect(await store.claim(k, 1, 30)).toBe(true);
      await new Promise((r) => setTimeout(r, 80));
      expect(await store.claim(k, 1, 10_000)).toBe(true);
    });

    test('enter returns a kept result and claims nothing else', async () => {
      const store = await makeStore();
      const [result, claim, queue, done] = [key('result'), key('claim'), key('queue'), key('done')];
      await store.set(result, { value: 'kept' }, 10_000);
      const entered = await store.enter({ once: { result, claim, ttlMs: 10_000 }, turn: { queue, done, turnMs: 10_000 } });
      expect(entered).toEqual({ result: { value: 'kept' }, claimed: false });
      expect(await store.getMany([claim, queue])).toEqual([undefined, undefined]);
    });

    test('enter claims, takes a ticket and reads in one step; a second caller finds the claim taken', async () => {
      const store = await makeStore();
      const [result, claim, queue, done, history] = [key('result'), key('claim'), key('queue'), key('done'), key('history')];
      await store.set(history, ['hi'], 10_000);
      const request = { once: { result, claim, ttlMs: 10_000 }, turn: { queue, done, turnMs: 10_000 }, read: [history, key('none')] };
      expect(await store.enter(request)).toEqual({ claimed: true, ticket: 1, done: 0, waitMs: 0, values: [['hi'], undefined] });
      expect(await store.enter(request)).toEqual({ claimed: false });
      const second = await store.enter({ turn: { queue, done, turnMs: 10_000 } });
      expect(second).toMatchObject({ claimed: true, ticket: 2, done: 0, values: [] });
      expect(second.waitMs).toBeGreaterThan(0);
      expect(second.waitMs).toBeLessThanOrEqual(10_000);
    });

    test('leave writes, deletes and ends a turn; the last turn out removes the queue keys', async () => {
      const store = await makeStore();
      const [queue, done, claim, history] = [key('queue'), key('done'), key('claim'), key('history')];
      const turn = { queue, done, turnMs: 10_000 };
      await store.claim(claim, 1, 10_000);
      await store.enter({ turn });
      await store.enter({ turn });
      await store.leave({ set: [{ key: history, value: ['one'], ttlMs: 10_000 }], delete: [claim], turn: { queue, done, ticket: 1 } });
      expect(await store.getMany([history, claim, queue, done])).toEqual([['one'], undefined, 2, 1]);
      expect(await store.enter({ turn, read: [history] })).toMatchObject({ claimed: true, ticket: 3, done: 1, values: [['one']] });
      await store.leave({ turn: { queue, done, ticket: 2 } });
      await store.leave({ turn: { queue, done, ticket: 3 } });
      expect(await store.getMany([queue, done])).toEqual([undefined, undefined]);
      expect(await store.enter({ turn })).toEqual({ claimed: true, ticket: 1, done: 0, waitMs: 0, values: [] });
    });

    test('a ticket waits for the one before it only until that one\'s deadline: a turn whose end is never written holds up the next turn, not the ones after it', async () => {
      const store = await makeStore();
      const [queue, done] = [key('queue'), key('done')];
      const turn = { queue, done, turnMs: 200 };
      // Ticket 1's holder dies: its end is never written.
      expect(await store.enter({ turn })).toMatchObject({ ticket: 1, waitMs: 0 });
      const second = await store.enter({ turn });
      expect(second).toMatchObject({ ticket: 2, done: 0 });
      expect(second.waitMs).toBeGreaterThan(0);
      expect(second.waitMs).toBeLessThanOrEqual(200);
      // Ticket 2 goes once ticket 1's deadline passes; ticket 3 waits for it, and only for it.
      await new Promise((r) => setTimeout(r, 250));
      const third = await store.enter({ turn });
      expect(third).toMatchObject({ ticket: 3, done: 0 });
      expect(third.waitMs).toBeGreaterThan(0);
      await store.leave({ turn: { queue, done, ticket: 2 } });
      expect(await store.get(done)).toBe(2);
      // Ticket 1's end, written at last, changes nothing; ticket 3's end, the last, clears the queue.
      await store.leave({ turn: { queue, done, ticket: 1 } });
      expect(await store.getMany([queue, done])).toEqual([3, 2]);
      await store.leave({ turn: { queue, done, ticket: 3 } });
      expect(await store.getMany([queue, done])).toEqual([undefined, undefined]);
    });

    test('ending a turn twice changes nothing, and a ticket the queue never gave changes nothing', async () => {
      const store = await makeStore();
      const [queue, done] = [key('queue'), key('done')];
      const turn = { queue, done, turnMs: 10_000 };
      for (let i = 0; i < 3; i++) await store.enter({ turn });
      await store.leave({ turn: { queue, done, ticket: 1 } });
      await store.leave({ turn: { queue, done, ticket: 1 } });
      await store.leave({ turn: { queue, done, ticket: 9 } });
      expect(await store.getMany([queue, done])).toEqual([3, 1]);
      expect(await store.enter({ turn })).toMatchObject({ ticket: 4, done: 1 });
    });

    test('a queue expires with the deadline of its last ticket, and starts again at ticket 1', async () => {
      const store = await makeStore();
      const [queue, done] = [key('queue'), key('done')];
      const turn = { queue, done, turnMs: 100 };
      await store.enter({ turn });
      await store.enter({ turn });
      await store.leave({ turn: { queue, done, ticket: 1 } });
      // Ticket 2 may wait up to 100 ms and then hold its turn up to 100 ms.
      await new Promise((r) => setTimeout(r, 250));
      expect(await store.getMany([queue, done])).toEqual([undefined, undefined]);
      await store.leave({ turn: { queue, done, ticket: 2 } });
      expect(await store.getMany([queue, done])).toEqual([undefined, undefined]);
      expect(await store.enter({ turn })).toEqual({ claimed: true, ticket: 1, done: 0, waitMs: 0, values: [] });
    });

    test('a count goes up by one at each enter and leave that names it, read with the enter, and expires', async () => {
      const store = await makeStore();
      const [count, other] = [key('count'), key('other')];
      await store.set(other, 5, 10_000);
      expect(await store.enter({ count: { key: count, ttlMs: 10_000 }, read: [other] })).toEqual({ claimed: true, count: 1, values: [5] });
      await store.leave({ count: { key: count, ttlMs: 10_000 } });
      expect(await store.enter({ count: { key: count, ttlMs: 100 } })).toEqual({ claimed: true, count: 3, values: [] });
      await new Promise((r) => setTimeout(r, 150));
      expect(await store.get(count)).toBeUndefined();
    });

    test('a watcher wakes when its key is written here, with the values it waited for', async () => {
      const store = await makeStore();
      const k = key('wait');
      const waiting = store.watch([k], ([v]) => v === 2, { timeoutMs: 60_000 });
      await store.set(k, 1, 10_000);
      await store.set(k, 2, 10_000);
      expect(await waiting).toEqual([2]);
    });

    test('a watcher sees a key vanish when it expires (at the watch tick)', async () => {
      const store = await makeStore();
      const k = key('expiring');
      await store.set(k, 1, 100);
      expect(await store.watch([k], ([v]) => v === undefined, { timeoutMs: 5_000 })).toEqual([undefined]);
    });

    test('a watcher gives up at its timeout or when aborted', async () => {
      const store = await makeStore();
      expect(await store.watch([key('never')], ([v]) => v !== undefined, { timeoutMs: 20 })).toBeUndefined();
      const abort = new AbortController();
      const waiting = store.watch([key('never')], ([v]) => v !== undefined, { timeoutMs: 5_000, signal: abort.signal });
      abort.abort();
      expect(await waiting).toBeUndefined();
    });

    test('a store seen through any budget is the same store: what one writes, another reads, changes and deletes', async () => {
      const store = await makeStore();
      const [k, list] = [key('shared'), key('shared-list')];
      const [caller, anonymous, security] = [store.withBudget({ owner: 'caller-a' }), store.withBudget('anonymous'), store.withBudget('security')];
      await caller.set(k, 'by a caller', 10_000);
      expect([await anonymous.get(k), await security.get(k), await store.get(k)]).toEqual(['by a caller', 'by a caller', 'by a caller']);
      await security.set(k, 'now a security record', 10_000);
      expect(await caller.get(k)).toBe('now a security record');
      await anonymous.append(list, ['a'], 10_000);
      await caller.append(list, ['b'], 10_000);
      expect(await security.range(list, 0)).toEqual(['a', 'b']);
      await caller.delete(k);
      expect(await security.get(k)).toBeUndefined();
    });

    test('a flood of writes by other callers evicts neither a caller\'s state nor a security record before it expires', async () => {
      const store = await makeSmallStore();
      const [victim, paid] = [key('victim-conversation'), key('paid')];
      await store.withBudget({ owner: 'victim' }).set(victim, { history: ['turn 1'] }, 60_000);
      await store.withBudget('security').set(paid, { settled: true }, 60_000);
      const attacker = store.withBudget({ owner: 'attacker' });
      const pool = store.withBudget('anonymous');
      const chunk = 'x'.repeat(20_000);
      for (let i = 0; i < 100; i++) {
        await attacker.set(key(`attacker-${i}`), chunk, 60_000);
        await pool.set(key(`pool-${i}`), chunk, 60_000).catch(() => undefined);
      }
      expect(await store.getMany([victim, paid])).toEqual([{ history: ['turn 1'] }, { settled: true }]);
    });

    describe('counters (tally)', () => {
      const ranked = (member: string, weight: number) => ({ set: 'top', member, weight, bound: 2, add: { calls: 1, tokens: weight } });

      test('adds to a bucket\'s counters, and reads several buckets at once (an absent one empty)', async () => {
        const store = await makeStore();
        const [a, b] = [key('bucket-a'), key('bucket-b')];
        await store.tally([{ key: a, ttlMs: 10_000, add: { calls: 1, 'in|echo': 120 } }, { key: b, ttlMs: 10_000, add: { calls: 1 } }]);
        await store.tally([{ key: a, ttlMs: 10_000, add: { calls: 1, 'in|echo': 5 } }]);
        expect(await store.readTallies([a, key('none'), b])).toEqual([{ calls: 2, 'in|echo': 125 }, {}, { calls: 1 }]);
      });

      test('a ranking keeps its heaviest members; a newcomer no heavier than the lightest does not push anyone out', async () => {
        const store = await makeStore();
        const k = key('ranked');
        await store.tally([{ key: k, ttlMs: 10_000, add: {}, ranked: [ranked('alice', 50), ranked('bob', 10)] }]);
        for (const flood of ['a1', 'a2', 'a3']) await store.tally([{ key: k, ttlMs: 10_000, add: {}, ranked: [ranked(flood, 10)] }]);
        expect(await store.readTallies([k])).toEqual([{
          'top:calls:alice': 1, 'top:tokens:alice': 50, 'top:calls:bob': 1, 'top:tokens:bob': 10, 'top:dropped': 3,
        }]);
        await store.tally([{ key: k, ttlMs: 10_000, add: {}, ranked: [ranked('carol', 30)] }]);
        const [after] = await store.readTallies([k]);
        expect(after).toEqual({ 'top:calls:alice': 1, 'top:tokens:alice': 50, 'top:calls:carol': 1, 'top:tokens:carol': 30, 'top:dropped': 4 });
      });

      test('a bucket expires its ttl after its first write', async () => {
        const store = await makeStore();
        const k = key('short');
        await store.tally([{ key: k, ttlMs: 40, add: { calls: 1 }, ranked: [ranked('alice', 1)] }]);
        await new Promise((r) => setTimeout(r, 100));
        expect(await store.readTallies([k])).toEqual([{}]);
      });
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
