import { afterEach, describe, expect, test, vi } from 'vitest';
import { DEFAULT_MEMORY_BUDGET, ENTRY_OVERHEAD_BYTES, MemoryStore, readMemoryBudget } from '../../lib/store/memory.js';
import { StoreFullError } from '../../lib/store/types.js';
import { selectStore } from '../../lib/store/select.js';
import { storeContract } from './contract.js';

storeContract('memory', () => new MemoryStore({}, 50), () => new MemoryStore({ maxBytes: 1_000_000 }, 50));

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
      + 'MEMORY_STORE_MAX_ENTRIES=2): evicted 1 least recently used entry since the last report, from the class of callers '
      + 'furthest over its share (1666 bytes and 1 entry each for principals, sessions and callers without an identity), within '
      + 'it from the caller holding the most; conversations and retried calls older than these are forgotten.');
  });

  test('an entry costs its key, its text and a fixed overhead; text that needs two bytes a character counts two', async () => {
    const store = new MemoryStore();
    await store.set('k', 'abc', 60_000);
    expect(store.bytes).toBe(ENTRY_OVERHEAD_BYTES + 'k'.length + '"abc"'.length);
    await store.set('k', 'ab€', 60_000);
    expect(store.bytes).toBe(ENTRY_OVERHEAD_BYTES + 'k'.length + 2 * '"ab€"'.length);
  });

  test('bad budget variables stop start-up naming the variable; absent ones mean the defaults', () => {
    expect(readMemoryBudget({})).toEqual(DEFAULT_MEMORY_BUDGET);
    expect(DEFAULT_MEMORY_BUDGET).toEqual({ maxBytes: 64 * 1024 * 1024, maxEntries: 100_000, maxBytesPerCaller: 16 * 1024 * 1024, maxBytesSecurity: 32 * 1024 * 1024 });
    expect(readMemoryBudget({ MEMORY_STORE_MAX_BYTES: '1048576', MEMORY_STORE_MAX_ENTRIES: '10' }))
      .toEqual({ maxBytes: 1_048_576, maxEntries: 10, maxBytesPerCaller: 262_144, maxBytesSecurity: 524_288 });
    expect(readMemoryBudget({ MEMORY_STORE_MAX_BYTES_PER_CALLER: '4096', MEMORY_STORE_MAX_BYTES_SECURITY: '8192' }))
      .toMatchObject({ maxBytesPerCaller: 4096, maxBytesSecurity: 8192 });
    expect(() => readMemoryBudget({ MEMORY_STORE_MAX_BYTES: '64MB' })).toThrow(new TypeError('MEMORY_STORE_MAX_BYTES must be a positive integer, got "64MB".'));
    expect(() => readMemoryBudget({ MEMORY_STORE_MAX_ENTRIES: '0' })).toThrow(TypeError);
    expect(() => readMemoryBudget({ MEMORY_STORE_MAX_BYTES_PER_CALLER: 'lots' })).toThrow(new TypeError('MEMORY_STORE_MAX_BYTES_PER_CALLER must be a positive integer, got "lots".'));
    expect(() => readMemoryBudget({ MEMORY_STORE_MAX_BYTES: '1000', MEMORY_STORE_MAX_BYTES_SECURITY: '2000' }))
      .toThrow(new TypeError('MEMORY_STORE_MAX_BYTES_SECURITY must be at most MEMORY_STORE_MAX_BYTES (1000), got "2000".'));
  });

  test('start-up prints the budget with the store summary', () => {
    const { summary } = selectStore(undefined, { MEMORY_STORE_MAX_BYTES: '1000000' });
    expect(summary).toContain('store: memory, at most 1000000 bytes and 100000 entries (MEMORY_STORE_MAX_BYTES, MEMORY_STORE_MAX_ENTRIES), '
      + 'at most 250000 per caller (MEMORY_STORE_MAX_BYTES_PER_CALLER) and 500000 for security records (MEMORY_STORE_MAX_BYTES_SECURITY), '
      + 'shared fairly (docs/security.md): principals, sessions and callers without an identity each sure of 166666 bytes');
  });
});

describe('the memory store is shared fairly (docs/architecture.md rule 12)', () => {
  afterEach(() => vi.restoreAllMocks());
  const chunk = (n: number) => 'x'.repeat(n);

  test('a caller over MEMORY_STORE_MAX_BYTES_PER_CALLER loses its own oldest entries, never another caller\'s', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxBytes: 1_000_000, maxBytesPerCaller: 50_000 });
    const [victim, flooder] = [store.withBudget({ owner: 'victim' }), store.withBudget({ owner: 'flooder' })];
    await victim.set('victim:conversation', chunk(10_000), 60_000);
    for (let i = 0; i < 100; i++) await flooder.set(`flooder:${i}`, chunk(10_000), 60_000);
    expect(await store.get('victim:conversation')).toBe(chunk(10_000));
    expect(store.bytesOf({ owner: 'flooder' })).toBeLessThanOrEqual(50_000);
    expect(await store.get('flooder:99')).toBe(chunk(10_000));
    expect(await store.get('flooder:0')).toBeUndefined();
    expect(String(warn.mock.calls[0]![0])).toContain('callers over MEMORY_STORE_MAX_BYTES_PER_CALLER=50000 lost 1 entry of their own');
  });

  test('the pool of callers without an identity or address never pushes out a class within its share', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxBytes: 200_000, maxBytesPerCaller: 100_000 });
    await store.withBudget({ owner: 'session', class: 'session' }).set('session:conversation', chunk(30_000), 60_000);
    const pool = store.withBudget('anonymous');
    for (let i = 0; i < 50; i++) await pool.set(`anonymous:${i}`, chunk(10_000), 60_000);
    expect(await store.get('session:conversation')).toBe(chunk(30_000));
    expect(await store.get('anonymous:49')).toBe(chunk(10_000));
    expect(await store.get('anonymous:0')).toBeUndefined();
    expect(store.bytes).toBeLessThanOrEqual(200_000);
  });

  test('room comes from the class furthest over its share, and within it from the caller holding the most', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    // Each class's share: (100,000 - 10,000) / 3 = 30,000 bytes.
    const store = new MemoryStore({ maxBytes: 100_000, maxBytesSecurity: 10_000, maxBytesPerCaller: 50_000 });
    expect(store.classShare.bytes).toBe(30_000);
    const [a1, a2] = [store.withBudget({ owner: 'a1', class: 'anonymous' }), store.withBudget({ owner: 'a2', class: 'anonymous' })];
    const [s1, s2] = [store.withBudget({ owner: 's1', class: 'session' }), store.withBudget({ owner: 's2', class: 'session' })];
    const principal = store.withBudget({ owner: 'p', class: 'principal' });
    await a1.set('a1', chunk(30_000), 60_000);
    await a2.set('a2', chunk(15_000), 60_000);
    await s1.set('s1', chunk(10_000), 60_000);
    await s2.set('s2', chunk(25_000), 60_000);
    await principal.set('p:a', chunk(5_000), 60_000);
    // A principal within its share: callers without an identity (1.5 times their share) give before sessions (1.2 times).
    await principal.set('p:b', chunk(20_000), 60_000);
    expect(await store.getMany(['a1', 'a2', 's1', 's2', 'p:a', 'p:b'])).toEqual([undefined, chunk(15_000), chunk(10_000), chunk(25_000), chunk(5_000), chunk(20_000)]);
    await principal.set('p:c', chunk(4_000), 60_000);
    // A class furthest over its share makes room from its own.
    await a2.set('a2:b', chunk(30_000), 60_000);
    expect(await store.getMany(['a2', 'a2:b', 's1', 's2'])).toEqual([undefined, chunk(30_000), chunk(10_000), chunk(25_000)]);
    // Within the class, the caller holding the most gives, not the writer.
    await s1.set('s1:b', chunk(10_000), 60_000);
    expect(await store.getMany(['s1', 's1:b', 's2', 'a2:b', 'p:a', 'p:b', 'p:c']))
      .toEqual([chunk(10_000), chunk(10_000), undefined, chunk(30_000), chunk(5_000), chunk(20_000), chunk(4_000)]);
    expect(store.bytes).toBeLessThanOrEqual(100_000);
  });

  test('sessions filling the store cannot refuse a caller without an identity, nor a principal: their class gives the room', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxBytes: 1_000_000 });
    for (let i = 0; i < 200; i++) await store.withBudget({ owner: `session-${i % 8}`, class: 'session' }).set(`s:${i}`, chunk(20_000), 60_000);
    expect(store.bytesOfClass('session')).toBeGreaterThan(store.budget.maxBytes - 25_000);
    await store.withBudget({ owner: 'address', class: 'anonymous' }).set('anonymous:conversation', chunk(90_000), 60_000);
    await store.withBudget({ owner: 'alice', class: 'principal' }).set('alice:conversation', chunk(90_000), 60_000);
    for (let i = 200; i < 400; i++) await store.withBudget({ owner: `session-${i % 8}`, class: 'session' }).set(`s:${i}`, chunk(20_000), 60_000);
    expect(await store.getMany(['anonymous:conversation', 'alice:conversation'])).toEqual([chunk(90_000), chunk(90_000)]);
    expect(store.bytes).toBeLessThanOrEqual(1_000_000);
  });

  test('a write is refused, and logged, only when the room left is security records and other classes within their shares; nothing changes', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    // Each class's share: (100,000 - 70,000) / 3 = 10,000 bytes.
    const store = new MemoryStore({ maxBytes: 100_000, maxBytesSecurity: 70_000, maxBytesPerCaller: 50_000 });
    await store.withBudget('security').set('paid', chunk(65_000), 60_000);
    await store.withBudget({ owner: 'session', class: 'session' }).set('session:state', chunk(8_000), 60_000);
    const caller = store.withBudget({ owner: 'address', class: 'anonymous' });
    await caller.set('anonymous:old', 'kept', 60_000);
    await expect(caller.set('anonymous:old', chunk(28_000), 60_000)).rejects.toThrow(StoreFullError);
    expect(await store.getMany(['paid', 'session:state', 'anonymous:old'])).toEqual([chunk(65_000), chunk(8_000), 'kept']);
    expect(String(warn.mock.calls.at(-1)![0])).toMatch(/^\[agent-mcp\] memory store refused 1 write since the last report \(latest: the store is full .* with security records, which are never evicted, and the state of other classes of callers within their shares\)/);
  });

  test('a value larger than its caller may hold is refused rather than kept at the cost of the caller\'s other state', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxBytes: 1_000_000, maxBytesPerCaller: 10_000 });
    const caller = store.withBudget({ owner: 'caller' });
    await caller.set('caller:small', 1, 60_000);
    await expect(caller.set('caller:big', chunk(20_000), 60_000)).rejects.toThrow(/MEMORY_STORE_MAX_BYTES_PER_CALLER=10000/);
    await expect(caller.append('caller:list', [chunk(20_000)], 60_000)).rejects.toThrow(StoreFullError);
    expect(await store.getMany(['caller:small', 'caller:big'])).toEqual([1, undefined]);
    expect(await store.range('caller:list', 0)).toEqual([]);
  });

  test('security records are never evicted; over MEMORY_STORE_MAX_BYTES_SECURITY the write is refused and logged', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxBytes: 100_000, maxEntries: 20, maxBytesSecurity: 30_000 });
    const security = store.withBudget('security');
    await security.set('x402:paid:1', chunk(12_000), 60_000);
    await security.set('x402:paid:2', chunk(12_000), 60_000);
    for (let i = 0; i < 40; i++) await store.withBudget({ owner: `caller-${i}` }).set(`caller:${i}`, chunk(5_000), 60_000);
    expect(await store.getMany(['x402:paid:1', 'x402:paid:2'])).toEqual([chunk(12_000), chunk(12_000)]);
    await expect(security.set('x402:paid:3', chunk(12_000), 60_000)).rejects.toThrow(/MEMORY_STORE_MAX_BYTES_SECURITY=30000/);
    expect(String(warn.mock.calls.at(-1)![0])).toContain('memory store refused 1 write since the last report (latest: security records would hold more than MEMORY_STORE_MAX_BYTES_SECURITY=30000 bytes)');
  });

  test('a security record that expired frees its room', async () => {
    const store = new MemoryStore({ maxBytes: 100_000, maxBytesSecurity: 20_000 });
    const security = store.withBudget('security');
    await security.set('claim:1', chunk(15_000), 20);
    await new Promise((resolve) => setTimeout(resolve, 40));
    await security.set('claim:2', chunk(15_000), 60_000);
    expect(await store.get('claim:2')).toBe(chunk(15_000));
  });

  test('a leave whose write is refused still ends its turn and drops its claim, then reports the refusal', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxBytes: 1_000_000, maxBytesPerCaller: 10_000 });
    const caller = store.withBudget({ owner: 'caller' });
    const turn = { queue: 'queue:c', done: 'queue-done:c' };
    const { ticket } = await caller.enter({ once: { result: 'once-result:c', claim: 'once-claim:c', ttlMs: 60_000 }, turn: { ...turn, turnMs: 60_000 } });
    await expect(caller.leave({ set: [{ key: 'conv:c', value: chunk(20_000), ttlMs: 60_000 }], delete: ['once-claim:c'], turn: { ...turn, ticket: ticket! } }))
      .rejects.toThrow(StoreFullError);
    expect(await store.getMany(['conv:c', 'once-claim:c', 'queue:c', 'queue-done:c'])).toEqual([undefined, undefined, undefined, undefined]);
  });

  test('enter holds the room a call will need before anything else; refused, it takes no claim and no ticket', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxBytes: 100_000, maxBytesSecurity: 70_000, maxBytesPerCaller: 50_000 });
    await store.withBudget('security').set('paid', chunk(65_000), 60_000);
    const caller = store.withBudget({ owner: 'address', class: 'anonymous' });
    const entry = { once: { result: 'once-result:c', claim: 'once-claim:c', ttlMs: 60_000 }, turn: { queue: 'queue:c', done: 'queue-done:c', turnMs: 60_000 } };
    const refused = await caller.enter({ ...entry, reserve: { key: 'room:1', bytes: 40_000, ttlMs: 60_000 } }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreFullError);
    expect((refused as StoreFullError).tooLarge).toBe(false);
    expect(await store.getMany(['room:1', 'once-claim:c', 'queue:c'])).toEqual([undefined, undefined, undefined]);
    const before = store.bytes;
    const entered = await caller.enter({ ...entry, reserve: { key: 'room:2', bytes: 20_000, ttlMs: 60_000 } });
    expect(entered.claimed).toBe(true);
    expect(store.bytes - before).toBeGreaterThan(20_000);
    // The room held is the call's to spend: its leave lets it go as it writes.
    await caller.leave({ set: [{ key: 'conv:c', value: chunk(20_000), ttlMs: 60_000 }], delete: ['once-claim:c', 'room:2'], turn: { queue: 'queue:c', done: 'queue-done:c', ticket: entered.ticket! } });
    expect(await store.get('conv:c')).toBe(chunk(20_000));
    expect(store.bytesOf({ owner: 'address', class: 'anonymous' })).toBeLessThan(21_000);
  });

  test('a call that does not go ahead (a kept result, a claim taken) lets its room go at once', async () => {
    const store = new MemoryStore();
    const caller = store.withBudget({ owner: 'caller', class: 'session' });
    await store.set('once-result:c', { value: 'done' }, 60_000);
    const once = { result: 'once-result:c', claim: 'once-claim:c', ttlMs: 60_000 };
    expect(await caller.enter({ once, reserve: { key: 'room:1', bytes: 10_000, ttlMs: 60_000 } })).toEqual({ result: { value: 'done' }, claimed: false });
    await store.delete('once-result:c');
    await store.set('once-claim:c', 1, 60_000);
    expect(await caller.enter({ once, reserve: { key: 'room:2', bytes: 10_000, ttlMs: 60_000 } })).toEqual({ claimed: false });
    expect(store.bytesOf({ owner: 'caller', class: 'session' })).toBe(0);
  });

  test('a value that a call would grow past what one caller may hold is refused as too large before the call runs', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxBytes: 1_000_000, maxBytesPerCaller: 50_000 });
    const caller = store.withBudget({ owner: 'caller', class: 'session' });
    await caller.set('conv:c', chunk(30_000), 60_000);
    const reserve = { key: 'room:1', bytes: 5_000, ttlMs: 60_000, grows: { key: 'conv:c', bytes: 25_000 } };
    const refused = await caller.enter({ read: ['conv:c'], reserve }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreFullError);
    expect((refused as StoreFullError).tooLarge).toBe(true);
    expect((await caller.enter({ read: ['conv:c'], reserve: { ...reserve, grows: { key: 'conv:c', bytes: 15_000 } } })).values).toEqual([chunk(30_000)]);
  });

  test('a hold never pushes its caller over its own budget: the history the call is about to read stays', async () => {
    const store = new MemoryStore({ maxBytes: 1_000_000, maxBytesPerCaller: 50_000 });
    const caller = store.withBudget({ owner: 'caller', class: 'session' });
    await caller.set('conv:c', chunk(40_000), 60_000);
    const entered = await caller.enter({ read: ['conv:c'], reserve: { key: 'room:1', bytes: 20_000, ttlMs: 60_000, grows: { key: 'conv:c', bytes: 5_000 } } });
    expect(entered.values).toEqual([chunk(40_000)]);
    expect(store.bytesOf({ owner: 'caller', class: 'session' })).toBeLessThanOrEqual(50_000);
  });

  test('a hold in a full store never evicts the history it is for: with nothing else of its class to give, the call is refused', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    // Each class's share: (100,000 - 10,000) / 3 = 30,000 bytes.
    const store = new MemoryStore({ maxBytes: 100_000, maxBytesSecurity: 10_000, maxBytesPerCaller: 60_000 });
    const session = store.withBudget({ owner: 's', class: 'session' });
    await session.set('conv:s', chunk(40_000), 60_000);
    await store.withBudget({ owner: 'a', class: 'anonymous' }).set('a', chunk(25_000), 60_000);
    await store.withBudget({ owner: 'p', class: 'principal' }).set('p', chunk(25_000), 60_000);
    const reserve = { key: 'room:s', bytes: 15_000, ttlMs: 60_000, grows: { key: 'conv:s', bytes: 1_000 } };
    await expect(session.enter({ read: ['conv:s'], reserve })).rejects.toThrow(StoreFullError);
    expect(await store.getMany(['conv:s', 'a', 'p', 'room:s'])).toEqual([chunk(40_000), chunk(25_000), chunk(25_000), undefined]);
    // With something else of its own to give, the session's oldest other state gives the room, not the history.
    await session.set('old:s', chunk(2_000), 60_000);
    await store.get('conv:s');
    const entered = await session.enter({ read: ['conv:s'], reserve: { ...reserve, bytes: 7_500 } });
    expect(entered.values).toEqual([chunk(40_000)]);
    expect(await store.get('old:s')).toBeUndefined();
    expect(store.bytes).toBeLessThanOrEqual(100_000);
  });

  test('an entry rewritten through another budget is charged to that budget', async () => {
    const store = new MemoryStore();
    await store.withBudget({ owner: 'a' }).set('k', chunk(1_000), 60_000);
    expect(store.bytesOf({ owner: 'a' })).toBeGreaterThan(1_000);
    await store.withBudget({ owner: 'b' }).set('k', chunk(1_000), 60_000);
    expect([store.bytesOf({ owner: 'a' }), store.bytesOf({ owner: 'b' }) > 1_000]).toEqual([0, true]);
  });
});
