import { describe, expect, test } from 'vitest';
import { createDefaultApp } from '../../lib/app.js';
import { selectStore } from '../../lib/store/select.js';
import { DEFAULT_WATCH_MS, MAX_READ_KEY_CHARS, MAX_WATCHED_KEY_CHARS, readWatchInterval, Watcher } from '../../lib/store/watch.js';

describe('STORE_WATCH_MS', () => {
  test('absent, waiters read the store every 4500 ms; set, every that many ms', () => {
    expect(readWatchInterval({})).toBe(4_500);
    expect(DEFAULT_WATCH_MS).toBe(4_500);
    expect(readWatchInterval({ STORE_WATCH_MS: '1000' })).toBe(1_000);
  });

  test.each(['soon', '10', '1.5'])('STORE_WATCH_MS=%s stops start-up with a TypeError naming it', (value) => {
    expect(() => createDefaultApp({ STORE_WATCH_MS: value })).toThrow(new TypeError(`STORE_WATCH_MS must be an integer of at least 50 (milliseconds), got "${value}".`));
  });

  test('the start-up line of a shared store states how soon another instance\'s write is seen', () => {
    const { summary } = selectStore({ url: 'https://example.upstash.io', token: 't', urlVariable: 'UPSTASH_REDIS_REST_URL' }, { STORE_WATCH_MS: '2000' });
    expect(summary).toContain('within STORE_WATCH_MS=2000 ms');
  });
});

describe('one waiter cannot make everyone\'s batched read large (issue 26 item 3)', () => {
  test('a key longer than MAX_WATCHED_KEY_CHARS is refused at once, and the others\' reads never carry it', async () => {
    const reads: string[][] = [];
    const watcher = new Watcher(async (keys) => (reads.push(keys), keys.map(() => undefined)), 20);
    const abort = new AbortController();
    const fine = watcher.watch(['cancel:short'], () => false, { timeoutMs: 5_000, signal: abort.signal });
    await expect(watcher.watch(['k'.repeat(MAX_WATCHED_KEY_CHARS + 1)], () => false, { timeoutMs: 5_000 }))
      .rejects.toThrow(new TypeError(`A watched store key holds at most ${MAX_WATCHED_KEY_CHARS} characters; this one has ${MAX_WATCHED_KEY_CHARS + 1}.`));
    await new Promise((resolve) => setTimeout(resolve, 60));
    abort.abort();
    await fine;
    expect(reads.length).toBeGreaterThanOrEqual(1);
    expect(reads.flat().every((key) => key === 'cancel:short')).toBe(true);
  });

  test('a tick whose keys hold more than MAX_READ_KEY_CHARS is split into reads of at most that many', async () => {
    const reads: string[][] = [];
    const watcher = new Watcher(async (keys) => (reads.push(keys), keys.map((key) => (key.endsWith(':7') ? 'filed' : undefined))), 20);
    const abort = new AbortController();
    const count = Math.ceil((2.5 * MAX_READ_KEY_CHARS) / MAX_WATCHED_KEY_CHARS);
    const waits = Array.from({ length: count }, (_, i) =>
      watcher.watch([`${'k'.repeat(MAX_WATCHED_KEY_CHARS - 10)}:${i}`], ([v]) => v !== undefined, { timeoutMs: 5_000, signal: abort.signal }));
    expect(await waits[7]).toEqual(['filed']);
    abort.abort();
    await Promise.all(waits);
    const tick = reads.slice(0, 3);
    expect(tick.map((keys) => keys.join('').length).every((chars) => chars <= MAX_READ_KEY_CHARS)).toBe(true);
    expect(tick.flat()).toHaveLength(count);
  });
});
