/**
 * Test support, run as its own process: chooses the deployment's store (selectStore, with the variables given as
 * JSON in argv[2]: the Upstash ones pick Upstash) and prints whether `node:v8`, which sets the memory store's heap
 * bounds, had been loaded before and after.
 */

import { readUpstashConfig } from '../../lib/store/upstash-config.js';
import { selectStore } from '../../lib/store/select.js';

// Node's list of the built-in modules it has loaded, not in its typings.
const loaded = () => (process as unknown as { moduleLoadList: string[] }).moduleLoadList.includes('NativeModule v8');
const env = JSON.parse(process.argv[2] ?? '{}');
const before = loaded();
selectStore(readUpstashConfig(env), env);
console.log(JSON.stringify({ before, chosen: loaded() }));
