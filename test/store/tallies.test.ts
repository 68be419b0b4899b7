/**
 * The memory store's counters (lib/store/tallies.ts) stay bounded by their shape: a bucket whose ttl is over is let
 * go as new ones are made, read or not; a ranking's member keeps adding to its own fields, and one pushed out takes
 * its fields with it. (What they hold , write by write, is the store contract's, test/store/contract.ts.)
 */

import { describe, expect, test } from 'vitest';
import { Tallies } from '../../lib/store/tallies.js';

describe('the memory store\'s counters', () => {
  test('buckets whose ttl is over go as new ones are made, without being read', () => {
    const tallies = new Tallies();
    for (let i = 0; i < 100; i++) tallies.add([{ key: `old:${i}`, ttlMs: 10, add: { calls: 1 } }], 0);
    expect(tallies.size).toBe(100);
    for (let i = 0; i < 100; i++) tallies.add([{ key: `new:${i}`, ttlMs: 10_000, add: { calls: 1 } }], 1_000);
    expect(tallies.size).toBe(100);
    expect(tallies.read(['old:0', 'new:0', 'new:99'], 1_000)).toEqual([{}, { calls: 1 }, { calls: 1 }]);
  });

  test('a member adds to its fields write after write; one pushed out of the ranking takes its fields along', () => {
    const tallies = new Tallies();
    const ranked = (member: string, weight: number) => [{ key: 'b', ttlMs: 10_000, add: { calls: 1 }, ranked: [{ set: 'a', member, weight, bound: 1, add: { c: 1, i: weight } }] }];
    for (let i = 0; i < 3; i++) tallies.add(ranked('ip:1', 5), 0);
    tallies.add(ranked('ip:2', 20), 0);
    expect(tallies.read(['b'], 0)).toEqual([{ calls: 4, 'a:c:ip:2': 1, 'a:i:ip:2': 20, 'a:dropped': 1 }]);
    tallies.add(ranked('ip:2', 1), 0);
    expect(tallies.read(['b'], 0)).toEqual([{ calls: 5, 'a:c:ip:2': 2, 'a:i:ip:2': 21, 'a:dropped': 1 }]);
  });

  test('past the members whose field names are kept, a member calling again still adds to its own fields', () => {
    const tallies = new Tallies();
    const write = (member: string) => tallies.add([{ key: 'b', ttlMs: 10_000, add: {}, ranked: [{ set: 'a', member, weight: 1, bound: 1_000, add: { c: 1 } }] }], 0);
    for (let i = 0; i < 200; i++) write(`ip:${i}`);
    write('ip:0');
    write('ip:199');
    const [fields] = tallies.read(['b'], 0);
    expect(Object.keys(fields!)).toHaveLength(200);
    expect([fields!['a:c:ip:0'], fields!['a:c:ip:1'], fields!['a:c:ip:199']]).toEqual([2, 1, 2]);
  });
});
