/**
 * Turn order and retry claims of lib/agent/turn.ts when a call's end is lost (issue 26, item 4): a holder that
 * never ends its turn, and a release the store refused. Real stores: memory, and a real redis-server behind the
 * Upstash REST bridge (through a proxy that can cut it).
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { runTurn } from '../../lib/agent/turn.js';
import { MemoryStore } from '../../lib/store/memory.js';
import { StoreUnavailableError, type Store } from '../../lib/store/types.js';
import { UpstashStore } from '../../lib/store/upstash.js';
import { startSharedRedis, type SharedRedis } from '../support/shared-redis.js';
import { startSwitchProxy, type SwitchProxy } from '../support/switch-proxy.js';

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

const prefix = () => `turn-${crypto.randomUUID().slice(0, 8)}:`;
const keysUnder = async (p: string) => (await redis.direct.send([['KEYS', `${p}*`]]))[0] as string[];
const never = new AbortController().signal;

describe.each([
  ['memory', () => ({ store: new MemoryStore({}, 50) as Store, keys: async () => [] as string[] })],
  ['upstash', () => {
    const p = prefix();
    return { store: new UpstashStore(redis.config, { prefix: p, watchMs: 50 }) as Store, keys: () => keysUnder(p) };
  }],
])('turn order on the %s store', (_, make) => {
  test('a turn whose end is never written (its holder hangs or died) holds up the next turn until its deadline, and the turns after it not at all', async () => {
    const { store, keys } = make();
    const queue = (onWait: (ahead: number) => void) => ({ key: 'a conversation', turnMs: 1_000, onWait });
    // The holder runs once it has its ticket, and never ends.
    await new Promise<void>((holding) => {
      void runTurn({ store, signal: never, queue: queue(() => undefined) }, () => {
        holding();
        return new Promise<never>(() => undefined);
      });
    });

    const waits: number[][] = [[], [], []];
    const second = await runTurn({ store, signal: never, queue: queue((n) => waits[0]!.push(n)) }, async () => ({ value: 'second' }));
    expect(second).toBe('second');
    expect(waits[0]).toEqual([1]);
    // Once the turn after the lost one has ended, later turns wait for nothing.
    expect(await runTurn({ store, signal: never, queue: queue((n) => waits[1]!.push(n)) }, async () => ({ value: 'third' }))).toBe('third');
    expect(await runTurn({ store, signal: never, queue: queue((n) => waits[2]!.push(n)) }, async () => ({ value: 'fourth' }))).toBe('fourth');
    expect(waits.slice(1)).toEqual([[], []]);
    expect(await keys()).toEqual([]);
  });
});

describe('a release the store refused', () => {
  test('is written again once the store answers: a retry of the call then runs instead of joining it, and the next turn does not wait', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const p = prefix();
    const store = new UpstashStore({ ...redis.config, url: proxy.url }, { prefix: p, watchMs: 50, timeoutMs: 1_000 });
    const options = (onJoin: () => void, onWait: () => void) => ({
      store,
      signal: never,
      once: { key: 'a call', claimTtlMs: 60_000, succeeded: () => true, onJoin },
      queue: { key: 'a conversation', turnMs: 60_000, onWait },
    });
    const refused = runTurn(options(() => undefined, () => undefined), async () => {
      proxy.setDown(true);
      return { value: 'lost' };
    });
    await expect(refused).rejects.toBeInstanceOf(StoreUnavailableError);
    proxy.setDown(false);

    // Far sooner than the claim's and the ticket's 60 s.
    await expect.poll(() => keysUnder(p), { timeout: 8_000, interval: 100 }).toEqual([]);
    const joined = vi.fn();
    const waited = vi.fn();
    expect(await runTurn(options(joined, waited), async () => ({ value: 'ran again' }))).toBe('ran again');
    expect(joined).not.toHaveBeenCalled();
    expect(waited).not.toHaveBeenCalled();
  });
});

describe('room for a call\'s writes is held before its work runs', () => {
  const room = (bytes: number) => ({ key: `room:${crypto.randomUUID()}`, bytes, ttlMs: 60_000 });

  test('a memory store with no room refuses the call before its work runs; with room, the hold is gone once the call has written', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const store = new MemoryStore({ maxBytes: 100_000, maxBytesSecurity: 90_000 });
    await store.withBudget('security').set('paid', 'p'.repeat(80_000), 60_000);
    const caller = store.withBudget({ owner: 'address', class: 'anonymous' });
    let runs = 0;
    const work = async () => {
      runs += 1;
      return { value: 'done', writes: [{ key: 'conv:c', value: 'x'.repeat(5_000), ttlMs: 60_000 }] };
    };
    await expect(runTurn({ store: caller, signal: never, reserve: room(30_000) }, work)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(runs).toBe(0);
    expect(await runTurn({ store: caller, signal: never, reserve: room(8_000) }, work)).toBe('done');
    expect(runs).toBe(1);
    expect(store.bytesOf({ owner: 'address', class: 'anonymous' })).toBeLessThan(5_300);
    vi.restoreAllMocks();
  });

  test('Upstash keeps no budgets: nothing is held, and a call with nothing else to claim, queue or read leaves no key', async () => {
    const p = prefix();
    const store = new UpstashStore(redis.config, { prefix: p, watchMs: 50 });
    expect(store.budgeted).toBe(false);
    expect(await runTurn({ store, signal: never, reserve: room(1_000_000) }, async () => ({ value: 'done' }))).toBe('done');
    expect(await keysUnder(p)).toEqual([]);
  });
});
