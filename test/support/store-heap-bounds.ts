/**
 * Test support, run as its own process: chooses the deployment's store (selectStore, with the variables given as
 * JSON in argv[2]: the Upstash ones pick Upstash) and prints whether `node:v8`, which sets the memory store's heap
 * bounds, had been loaded before, as the store was chosen, and on the next turn of the event loop. With argv[3]
 * `served`, the store is chosen by the first request of `npm start`'s server instead (the MCP function behind
 * srvx, over loopback HTTP), and `chosen` is whether `node:v8` had loaded when that request's reply was handed
 * to the socket.
 */

import { ServerResponse } from 'node:http';
import { readUpstashConfig } from '../../lib/store/upstash-config.js';
import { selectStore } from '../../lib/store/select.js';
import { startLocalServer } from '../../scripts/local-server.js';

// Node's list of the built-in modules it has loaded, not in its typings.
const loaded = () => (process as unknown as { moduleLoadList: string[] }).moduleLoadList.includes('NativeModule v8');
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const env = JSON.parse(process.argv[2] ?? '{}');
const before = loaded();

if (process.argv[3] === 'served') {
  Object.assign(process.env, env);
  const replies: boolean[] = [];
  const end = ServerResponse.prototype.end;
  ServerResponse.prototype.end = function (this: ServerResponse, ...args: Parameters<typeof end>) {
    replies.push(loaded());
    return end.apply(this, args);
  } as typeof end;
  const server = await startLocalServer({ port: 0, hostname: '127.0.0.1' });
  const reply = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  if (reply.status !== 200) throw new Error(`tools/list answered ${reply.status}: ${await reply.text()}`);
  await reply.text();
  await nextTurn();
  console.log(JSON.stringify({ before, chosen: replies[0], nextTurn: loaded() }));
  await server.close();
} else {
  selectStore(readUpstashConfig(env), env);
  const chosen = loaded();
  await nextTurn();
  console.log(JSON.stringify({ before, chosen, nextTurn: loaded() }));
}
