/**
 * What a benchmark server answers over its IPC channel (bench/process.mjs `ask`), from inside: 'rss' its resident
 * set size, V8 heap size and heap use after a full GC (run with --expose-gc); 'heap-snapshot' writes a heap
 * snapshot after a full GC and answers its path; 'eld-reset' starts (or restarts) an
 * event-loop delay histogram (perf_hooks.monitorEventLoopDelay, 10 ms resolution; off until asked, so no other row
 * pays its timer), 'eld' reads it in ms. Every server of a comparison answers through this one module.
 */

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';

let delay;

export function answerSideChannel() {
  process.on('message', (message) => {
    if (message === 'rss') {
      globalThis.gc?.();
      const { rss, heapTotal, heapUsed } = process.memoryUsage();
      process.send({ rss, heapTotal, heapUsed });
    } else if (message === 'heap-snapshot') {
      globalThis.gc?.();
      process.send({ path: writeHeapSnapshot(join(tmpdir(), `bench-${process.pid}-${Date.now()}.heapsnapshot`)) });
    } else if (message === 'eld-reset') {
      if (!delay) (delay = monitorEventLoopDelay({ resolution: 10 })).enable();
      delay.reset();
      process.send({ ok: true });
    } else if (message === 'eld') {
      const ms = (ns) => (Number.isFinite(ns) ? ns / 1e6 : 0);
      process.send({ p50Ms: ms(delay?.percentile(50)), p99Ms: ms(delay?.percentile(99)), maxMs: ms(delay?.max) });
    }
  });
}
