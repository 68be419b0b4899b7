/**
 * `npm start`'s server (scripts/local-server.ts: the api/ functions behind vercel.json's routes) for the memory
 * benchmarks, run with `node --import tsx`. Samples its resident set size every 10 ms and, over IPC, answers
 * 'rss' with the current and peak RSS since the last 'reset' (after a full GC when run with --expose-gc).
 */

import { startLocalServer } from '../scripts/local-server.ts';

const { url } = await startLocalServer({ port: 0, hostname: '127.0.0.1' });
let peak = 0;
const sample = () => (peak = Math.max(peak, process.memoryUsage.rss()));
setInterval(sample, 10).unref();
process.on('message', (message) => {
  if (message === 'reset') {
    globalThis.gc?.();
    peak = process.memoryUsage.rss();
    return process.send({ rss: peak, peak });
  }
  if (message !== 'rss') return;
  sample();
  const seenPeak = peak;
  globalThis.gc?.();
  process.send({ rss: process.memoryUsage.rss(), peak: seenPeak });
});
console.log(`listening on ${url.replace('localhost', '127.0.0.1')}`);
