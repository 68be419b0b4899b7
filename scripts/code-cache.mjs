/**
 * V8 code caches for a function in script form (scripts/script-form.mjs), made at build time: a cold start then
 * deserializes the bytecode of its start-up code and of its first requests instead of compiling them
 * (docs/performance.md "Cold start, issue 22 round 2").
 *
 * V8 takes a cache only from its own version, with the same V8 flags and the same read-only snapshot (the build of
 * that Node), and checks the source only by its length. So each cache is made by the Node that will read it, in a
 * fresh process, and named for that V8 (`<name>.<process.versions.v8>-<arch>.cache`): the build's own Node, and the
 * Node of the function's runtime (`nodejs24.x` in .vc-config.json: the pinned Node 24 from npm,
 * scripts/npm-cache.mjs) when the build runs another. The runtime's Node gets a second cache made as the platform
 * starts it (RUNTIME_FLAGS, named `…-expose-gc.cache`), which the loader picks when it runs so. A Node started with
 * other V8 flags, or a Node build whose snapshot differs, refuses the cache and compiles as before; the loader says
 * which (codeCache.status).
 *
 * Made after warm-up requests, so the functions the first requests compile lazily are in it. The warm-up runs with
 * MEMORY_STORE_HEAP_GROWTH_PERCENT=0: the memory store's V8 heap flags, set on a first request, change V8's flag
 * hash, and a cache made after them would be refused by every fresh process. Each cache is then checked: a fresh
 * process of the same Node must use it, or it is not shipped (startFromCodeCache says so in the build log).
 */

import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode } from './npm-cache.mjs';
import { ScriptFormError, toScriptForm } from './script-form.mjs';

const CHILD = fileURLToPath(new URL('./code-cache-child.mjs', import.meta.url));

const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const legacy = (method, params) => ({
  url: 'http://localhost/mcp', method: 'POST', headers: { ...json, 'mcp-protocol-version': '2025-11-25' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }),
});
const modern = (method) => ({
  url: 'http://localhost/mcp', method: 'POST', headers: { ...json, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
});

/**
 * The functions built in script form, by handler, with the requests their cache is made after: what a new
 * instance is first asked on either wire (a client's handshake, then the tool list), and a call of the demo agent,
 * whose path on the server's side (dispatch, the chat tool, the conversation) every agent's call takes: +46 KB of
 * cache, ~0.1 ms on a cold tools/list, 1.4 ms off a cold tools/call (docs/performance.md "Issue 22 round 8: the
 * first reply and the first call").
 */
export const WARM_UP = {
  'api/mcp.js': [
    legacy('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'build', version: '0' } }),
    legacy('tools/list'),
    modern('server/discover'),
    modern('tools/list'),
    legacy('tools/call', { name: 'chat_with_agent', arguments: { message: 'warm' } }),
  ],
};

/**
 * The V8 flags the function's runtime starts Node with, as far as they enter V8's flag hash. AWS Lambda's managed
 * Node runtimes, on which Vercel Functions run, start `node --expose-gc --max-http-header-size 81920` with heap sizes
 * from the function's memory (their bootstrap script). Of these V8 13 (Node 24) hashes `--expose-gc` only: a cache
 * made without it is refused there, one made with it is used whatever the heap sizes (V8 11, Node 20, hashes the
 * heap sizes too, which vary with the memory setting). The loader tells the two apart by the `gc` global that
 * `--expose-gc` defines.
 */
export const RUNTIME_FLAGS = ['--expose-gc'];

/**
 * The whole command line of that bootstrap for a function of `memoryMb`: a tenth of the memory is the young
 * generation, half of that each semi-space, the rest the old generation. For tests and benchmarks that start Node
 * as the runtime does.
 */
export function lambdaNodeFlags(memoryMb = 2048) {
  const newSpace = Math.floor(memoryMb / 10);
  return [...RUNTIME_FLAGS, '--max-http-header-size', '81920', `--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMb - newSpace}`];
}

/**
 * The caches to make, as the Node binary and the V8 flags each is made with: one without flags for this Node, and
 * for the runtime's major (installed when this Node is another) one without flags and one with RUNTIME_FLAGS.
 */
export function cacheBuilds(runtime, log = console.log) {
  const builds = [{ node: process.execPath, flags: [] }];
  const major = /^nodejs(\d+)\.x$/.exec(runtime ?? '')?.[1];
  if (!major) return builds;
  if (Number(major) === Number(process.versions.node.split('.')[0])) return [...builds, { node: process.execPath, flags: RUNTIME_FLAGS }];
  try {
    const node = ensureNode(Number(major), { quick: true });
    if (node) return [...builds, { node, flags: [] }, { node, flags: RUNTIME_FLAGS }];
    log(`code cache: no pinned Node ${major} (scripts/npm-cache.mjs), so none for ${runtime}; it compiles at start there`);
  } catch (error) {
    log(`code cache: no Node ${major} to build ${runtime}'s cache (${error.message}); it compiles at start there`);
  }
  return builds;
}

/**
 * Why a child failed, on one line: what the function logged (`[agent-mcp] configuration error: …`) and the error
 * it threw, without Node's source excerpt and stack; the last line said when neither is there.
 */
export function failureReason(stderr) {
  const lines = stderr.split('\n').map((line) => line.trim()).filter(Boolean);
  const said = lines.filter((line) => line.startsWith('[agent-mcp]') || /^[A-Za-z]*Error\b.*?: /.test(line));
  return (said.length ? said : lines.slice(-1)).join('; ') || 'nothing said';
}

function run(node, flags, args) {
  // Only PATH: the warm-up serves the defaults, as the cold-start benchmark does.
  const env = { PATH: process.env.PATH, MEMORY_STORE_HEAP_GROWTH_PERCENT: '0' };
  const result = spawnSync(node, [...flags, CHILD, ...args], { encoding: 'utf8', env, timeout: 60_000 });
  if (result.status !== 0) {
    throw new Error(`code cache: ${[node, ...flags].join(' ')} ${args[0]} failed (${result.status ?? result.signal}): ${failureReason(result.stderr ?? '')}`);
  }
  return result.stdout;
}

/**
 * Makes and checks the cache of the loader `loader` with each of `nodes`, started with the V8 flags `flags`;
 * returns the keys made. A cache a fresh process (with the same flags) does not use is removed (a loader would read
 * it on every cold start for nothing) and throws.
 */
export function makeCodeCaches(loader, requests, nodes, flags = []) {
  return nodes.map((node) => {
    run(node, flags, ['make', loader, JSON.stringify(requests)]);
    const { status, key } = JSON.parse(run(node, flags, ['check', loader]).trim().split('\n').at(-1));
    if (status !== 'used') {
      rmSync(join(dirname(loader), `${basename(loader, '.js')}.${key}.cache`), { force: true });
      throw new Error(`code cache: ${[node, ...flags].join(' ')} made a cache for ${key} that a fresh process did not use (${status})`);
    }
    return key;
  });
}

/**
 * The build's step for a function with a warm-up (WARM_UP): the ES module `entry` in script form with a cache for
 * each build of `cacheBuilds(runtime)`; returns the keys it has a cache for. What cannot be done is said and
 * left: an entry the script form cannot hold stays an ES module, a Node whose cache could not be made or is not
 * used gets none (the function compiles at start there, as an ES module would); neither stops the build.
 */
export async function startFromCodeCache(entry, root, warmUp, runtime, log = console.log) {
  try {
    await toScriptForm(entry, root);
  } catch (error) {
    if (!(error instanceof ScriptFormError)) throw error;
    log(`code cache: none, ${entry} stays an ES module (${error.message})`);
    return [];
  }
  return cacheBuilds(runtime, log).flatMap(({ node, flags }) => {
    try {
      return makeCodeCaches(entry, warmUp, [node], flags);
    } catch (error) {
      log(`code cache: none made with ${[node, ...flags].join(' ')}, the function compiles at start on its V8 so started (${error.message.split('\n')[0]})`);
      return [];
    }
  });
}
