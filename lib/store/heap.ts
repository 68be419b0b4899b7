/**
 * What the memory store costs beyond its budget: the garbage V8 lets pile up around it. V8 collects the old
 * generation once its heap has grown by a factor of what was live after the last collection, up to 4× on a machine
 * with memory to spare, and the store's values are live: a full 64 MiB store let 10,000 chat calls of 99 KB peak
 * at some 450 MB of RSS, where the budget allows ~100 + 64 MB (bench/bounds.mjs, docs/performance.md). Node 24's V8
 * also grows the young generation to 128 MB under such a load, and keeps it. A process that keeps the memory store
 * therefore tells V8 to grow the old generation at most MEMORY_STORE_HEAP_GROWTH_PERCENT past what is live, and to
 * keep the young generation at its starting size: more collections, each cheap (the store's values are flat strings
 * V8 does not scan; a request's garbage dies young), and an RSS that follows the budget on Node 20, 22 and 24. These
 * are settings of the process: every heap in it grows so. Both are read by V8 as it collects, so setting them after
 * start-up takes effect. They are set on the turn of the event loop after the store is chosen: before a first
 * call's allocations grow the young generation, which arrive by I/O on later turns (set with the store's first
 * write instead, a warm `npm start` held ~15 MB more and a 200 MB upstream reply peaked ~30 MB higher on Node 24),
 * and after the reply to a function's first request, which a request read whole in one turn gets within that turn.
 * `node:v8` is loaded only then: its 0.3–0.4 ms (0.8 ms under AWS Lambda's `--expose-gc`) are not spent before a
 * cold start's first reply, and a process on Upstash never spends them.
 */

import { integerEnv } from '../config.js';

type Env = Record<string, string | undefined>;

/** 30: the peak stays near the live heap plus a third, at a few percent more time in GC under a flood (docs/performance.md). */
export const DEFAULT_HEAP_GROWTH_PERCENT = 30;

/** MEMORY_STORE_HEAP_GROWTH_PERCENT: a whole number; 0 leaves V8's own growth. */
export function readHeapGrowth(env: Env): number {
  return integerEnv(env, 'MEMORY_STORE_HEAP_GROWTH_PERCENT', DEFAULT_HEAP_GROWTH_PERCENT, 0, 'a whole number of percent (0 leaves V8\'s own)');
}

/**
 * Bounds the heap's growth past what is live, and the young generation to its starting size, from the next turn of
 * the event loop; 0 changes nothing.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent === 0) return;
  setImmediate(() => {
    const { setFlagsFromString } = process.getBuiltinModule('node:v8');
    setFlagsFromString(`--heap-growing-percent=${percent}`);
    setFlagsFromString('--semi-space-growth-factor=1');
  });
}
