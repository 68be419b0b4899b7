import { describe, expect, test } from 'vitest';
import { createMemoryLimiter } from '../../lib/limits/memory.js';

const MINUTE = 60_000;

describe('the memory limiter (sliding window, frozen clock)', () => {
  test('admits the limit within a window, then refuses until the window slides', async () => {
    let now = 10 * MINUTE;
    const limiter = createMemoryLimiter({ limit: 3, windowMs: MINUTE, text: '3/1m' }, () => now);
    const kinds = [];
    for (let i = 0; i < 4; i++) kinds.push((await limiter.limit('a')).kind);
    expect(kinds).toEqual(['allowed', 'allowed', 'allowed', 'denied']);
    expect(await limiter.limit('a')).toEqual({ kind: 'denied', limit: 3, remaining: 0, reset: 11 * MINUTE });

    now = 11 * MINUTE + MINUTE / 2; // half of the previous window still overlaps: 3 × 0.5 → 1 counted
    expect(await limiter.limit('a')).toMatchObject({ kind: 'allowed', remaining: 1 });
    expect(await limiter.limit('a')).toMatchObject({ kind: 'allowed', remaining: 0 });
    expect((await limiter.limit('a')).kind).toBe('denied');

    now = 13 * MINUTE; // two windows later nothing overlaps
    expect(await limiter.limit('a')).toMatchObject({ kind: 'allowed', remaining: 2 });
  });

  test('each identifier has its own budget', async () => {
    const limiter = createMemoryLimiter({ limit: 1, windowMs: MINUTE, text: '1/1m' }, () => 0);
    expect((await limiter.limit('a')).kind).toBe('allowed');
    expect((await limiter.limit('a')).kind).toBe('denied');
    expect((await limiter.limit('b')).kind).toBe('allowed');
  });
});

test('a check of several requests counts them all, and a denied one counts none', async () => {
  const limiter = createMemoryLimiter({ limit: 5, windowMs: 60_000, text: '5/1m' }, () => 0);
  expect(await limiter.limit('a', 4)).toMatchObject({ kind: 'allowed', remaining: 1 });
  expect((await limiter.limit('a', 2)).kind).toBe('denied');
  expect(await limiter.limit('a')).toMatchObject({ kind: 'allowed', remaining: 0 });
});
