/**
 * Preloaded (`--import`) into a benchmark server: V8's sampling heap profiler over the IPC channel, collected objects
 * included, so its total is every byte the process allocated while it ran, not what survived. 'heap-start' starts
 * it; 'heap-stop' answers the bytes sampled and the functions that allocated most (self bytes), and stops it.
 * 'cpu-start' and 'cpu-stop' do the same with the CPU profiler: busy time (idle left out) and where it went, by
 * function (self time).
 */

import { Session } from 'node:inspector/promises';

const session = new Session();
session.connect();
const INTERVAL = 1024;

process.on('message', async (message) => {
  if (message === 'heap-start') {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: INTERVAL, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true,
    });
    process.send({ ok: true });
  } else if (message === 'heap-stop') {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    const byFunction = new Map();
    let total = 0;
    const walk = (node) => {
      const { functionName, url, lineNumber } = node.callFrame;
      const key = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
      total += node.selfSize;
      for (const child of node.children) walk(child);
    };
    walk(profile.head);
    const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25);
    process.send({ total, top });
  } else if (message === 'cpu-start') {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    process.send({ ok: true });
  } else if (message === 'cpu-stop') {
    const { profile } = await session.post('Profiler.stop');
    const self = new Map();
    for (const node of profile.nodes) {
      const { functionName, url, lineNumber } = node.callFrame;
      const key = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
      self.set(key, (self.get(key) ?? 0) + node.hitCount);
    }
    const idle = [...self].filter(([key]) => key.startsWith('(idle)')).reduce((sum, [, hits]) => sum + hits, 0);
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    const busy = total - idle;
    const top = [...self].filter(([key]) => !key.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, 30).map(([key, hits]) => [key, hits / busy]);
    process.send({ busyShare: busy / total, top });
  }
});
