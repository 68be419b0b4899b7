/**
 * Test support: `node --import ./import-trace.mjs …` records every module URL the process loads, so a test
 * can tell whether a request path imported a package. The loader hook runs off the main thread and posts
 * each URL back over a MessagePort (Node module customization hooks, `register` with `data`).
 */

import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const loaded = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => loaded.add(url));
port1.unref();

const hooks = `
let port;
export function initialize(data) { port = data.port; }
export async function load(url, context, next) { port.postMessage(url); return next(url, context); }
`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { port: port2 }, transferList: [port2] });

/** The URLs loaded so far (after letting pending hook messages arrive). */
globalThis.loadedModules = async () => {
  await new Promise((resolve) => setTimeout(resolve, 50));
  return [...loaded];
};
