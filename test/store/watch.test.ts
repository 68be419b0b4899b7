import { describe, expect, test } from 'vitest';
import { createDefaultApp } from '../../lib/app.js';
import { selectStore } from '../../lib/store/select.js';
import { DEFAULT_WATCH_MS, readWatchInterval } from '../../lib/store/watch.js';

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
