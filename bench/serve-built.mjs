/**
 * Serves one built function (argv[2]: its handler module) on loopback with srvx, the Node adapter `npm start`
 * uses, for benchmarks: every target sits behind the same adapter. With an IPC channel, answers 'rss' with its
 * resident set size, V8 heap size and heap use after a full GC (run with --expose-gc).
 */

import { pathToFileURL } from 'node:url';
import { serve } from 'srvx';

const { default: fn } = await import(pathToFileURL(process.argv[2]).href);
const server = serve({ port: 0, hostname: '127.0.0.1', silent: true, fetch: (request) => fn.fetch(request) });
await server.ready();
process.on('message', (message) => {
  if (message !== 'rss') return;
  globalThis.gc?.();
  const { rss, heapTotal, heapUsed } = process.memoryUsage();
  process.send({ rss, heapTotal, heapUsed });
});
console.log(`listening on ${server.url.replace(/\/$/, '')}`);
