/**
 * Serves one built function (argv[2]: its handler module) on loopback with srvx, the Node adapter `npm start`
 * uses, for benchmarks: every target sits behind the same adapter. With an IPC channel, answers what
 * bench/side-channel.mjs answers (memory after a full GC, event-loop delay).
 */

import { pathToFileURL } from 'node:url';
import { serve } from 'srvx';
import { answerSideChannel } from './side-channel.mjs';

const { default: fn } = await import(pathToFileURL(process.argv[2]).href);
const server = serve({ port: 0, hostname: '127.0.0.1', silent: true, fetch: (request) => fn.fetch(request) });
await server.ready();
if (process.send) answerSideChannel();
console.log(`listening on ${server.url.replace(/\/$/, '')}`);
