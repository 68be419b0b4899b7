/**
 * Test support, run as its own process: the deployment's memory store (selectStore, with the MEMORY_STORE_*
 * variables given as JSON in argv[2]); prints whether `node:v8`, which sets the heap's bounds, had been loaded once
 * the store was chosen, after a read, and after its first write.
 */

import { selectStore } from '../../lib/store/select.js';

const loaded = () => process.moduleLoadList.includes('NativeModule v8');
const { store } = selectStore(undefined, JSON.parse(process.argv[2] ?? '{}'));
const chosen = loaded();
await store.get('agent-mcp:conv:1');
const read = loaded();
await store.set('agent-mcp:conv:1', { history: ['hello'] }, 60_000);
console.log(JSON.stringify({ chosen, read, written: loaded() }));
