/** Serves the built api/mcp function (the `vercel build` artifact) on loopback with srvx, for benchmarks. */

import { serve } from 'srvx';
import { loadBuiltFunction } from '../scripts/load-built.mjs';

const fn = await loadBuiltFunction('api/mcp');
const server = serve({ port: 0, hostname: '127.0.0.1', silent: true, fetch: (request) => fn.fetch(request) });
await server.ready();
console.log(`listening on ${server.url.replace(/\/$/, '')}`);
