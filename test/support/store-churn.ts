/**
 * Test support, run as its own process: the deployment's memory store (selectStore, as createDefaultApp picks it,
 * with the MEMORY_STORE_* variables given as JSON in argv[2]) filled past its budget by 3,000 conversations of
 * 200 KB, with as much garbage made beside each; prints the largest V8 heap seen and what the store held.
 */

import { selectStore } from '../../lib/store/select.js';
import type { MemoryStore } from '../../lib/store/memory.js';

const { store } = selectStore(undefined, JSON.parse(process.argv[2] ?? '{}'));
// The heap's bounds take effect on the next turn of the event loop (lib/store/heap.ts), as the requests of a
// server, which arrive by I/O, each have turns of their own.
await new Promise((resolve) => setImmediate(resolve));
const base = process.memoryUsage().heapTotal;
let peak = base;
const text = 'x'.repeat(200_000);
for (let i = 0; i < 3_000; i++) {
  await store.set(`agent-mcp:conv:${i}`, { history: [`${text}${i}`, `reply ${i}`] }, 3_600_000);
  JSON.stringify({ request: `${text}${i}`, reply: text }); // what a request leaves behind
  peak = Math.max(peak, process.memoryUsage().heapTotal);
}
console.log(JSON.stringify({ base, peak, stored: (store as MemoryStore).bytes }));
