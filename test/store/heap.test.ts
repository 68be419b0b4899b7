/**
 * The memory store's budget bounds the memory it costs, garbage included (lib/store/heap.ts): V8 grows its heap by
 * a factor of what is live before a full collection, and a full store is live. In a process of its own, a store
 * at its 64 MiB budget churned by 3,000 conversations keeps the heap within twice the budget (V8's own growth,
 * MEMORY_STORE_HEAP_GROWTH_PERCENT=0, takes it past five times). Heap sizes, never RSS or time.
 */

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { readHeapGrowth } from '../../lib/store/heap.js';

const CHURN = fileURLToPath(new URL('../support/store-churn.ts', import.meta.url));
const BOUNDS = fileURLToPath(new URL('../support/store-heap-bounds.ts', import.meta.url));

function inOwnProcess<T>(script: string, env: Record<string, string>, ...args: string[]): T {
  const run = spawnSync(process.execPath, ['--import', 'tsx', script, JSON.stringify(env), ...args], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!);
}

const churn = (env: Record<string, string>) => inOwnProcess<{ base: number; peak: number; stored: number }>(CHURN, env);

describe('a memory store at its budget, churned', () => {
  test('keeps the heap within twice MEMORY_STORE_MAX_BYTES', { timeout: 120_000 }, () => {
    const { base, peak, stored } = churn({});
    expect(stored).toBeGreaterThan(60 * 2 ** 20);
    expect(stored).toBeLessThanOrEqual(64 * 2 ** 20);
    expect(peak - base).toBeLessThan(2 * 64 * 2 ** 20);
  });
});

describe('node:v8, which sets the heap\'s bounds (0.3–0.8 ms of a cold start to load)', () => {
  test('is loaded on the turn after the memory store is chosen', { timeout: 30_000 }, () => {
    expect(inOwnProcess(BOUNDS, {})).toEqual({ before: false, chosen: false, nextTurn: true });
  });

  test('is loaded after the reply to the request that chose the memory store, over HTTP', { timeout: 30_000 }, () => {
    expect(inOwnProcess(BOUNDS, {}, 'served')).toEqual({ before: false, chosen: false, nextTurn: true });
  });

  test('is never loaded on Upstash, nor with MEMORY_STORE_HEAP_GROWTH_PERCENT=0', { timeout: 30_000 }, () => {
    const upstash = { UPSTASH_REDIS_REST_URL: 'https://example.upstash.io', UPSTASH_REDIS_REST_TOKEN: 'token' };
    expect(inOwnProcess(BOUNDS, upstash)).toEqual({ before: false, chosen: false, nextTurn: false });
    expect(inOwnProcess(BOUNDS, { MEMORY_STORE_HEAP_GROWTH_PERCENT: '0' })).toEqual({ before: false, chosen: false, nextTurn: false });
  });
});

test('MEMORY_STORE_HEAP_GROWTH_PERCENT that is not a whole number of percent is a TypeError naming it', () => {
  expect(readHeapGrowth({})).toBe(30);
  expect(readHeapGrowth({ MEMORY_STORE_HEAP_GROWTH_PERCENT: '0' })).toBe(0);
  expect(() => readHeapGrowth({ MEMORY_STORE_HEAP_GROWTH_PERCENT: '1.5' }))
    .toThrow(new TypeError('MEMORY_STORE_HEAP_GROWTH_PERCENT must be a whole number of percent (0 leaves V8\'s own), got "1.5".'));
});
