/**
 * The built api/mcp starts from the V8 code cache `npm run build` made (run `npm run build` first; `npm test` does):
 * a fresh process of each Node a cache was made with uses it (codeCache.status, which is V8's cachedDataRejected),
 * there is one for the Node of the function's runtime (nodejs24.x), and without a usable cache the same function
 * compiles its script and serves as before.
 */

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
// @ts-expect-error plain ESM helper without type declarations
import { builtFunctionPath } from '../../scripts/load-built.mjs';
// @ts-expect-error plain ESM script without type declarations
import { lambdaNodeFlags } from '../../scripts/code-cache.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const loader = builtFunctionPath('api/mcp');
const caches = () => readdirSync(dirname(loader)).filter((file) => file.endsWith('.cache'));
/** Node binaries a cache may have been made with: this one, and the pinned ones in .cache (scripts/npm-cache.mjs). */
const nodes = [process.execPath, ...['node22', 'node24'].map((dir) => join(ROOT, '.cache', dir, `node_modules/node-${process.platform}-${process.arch}/bin/node`)).filter(existsSync)];

/** A fresh `node` process importing `path`: its codeCache, and the replies to tools/list then a tools/call. */
function coldStart(node: string, path: string, flags: string[] = []) {
  const script = `
    const fn = await import(${JSON.stringify(pathToFileURL(path).href)});
    const post = (id, method, params) => fn.default.fetch(new Request('http://localhost/mcp', { method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) })).then((response) => response.json());
    const list = await post(1, 'tools/list', {});
    const call = await post(2, 'tools/call', { name: 'chat_with_agent', arguments: { message: 'cached' } });
    console.log(JSON.stringify({ status: fn.codeCache.status, key: fn.codeCache.key, tools: list.result.tools.map((t) => t.name), reply: call.result.structuredContent.reply }));`;
  const run = spawnSync(node, [...flags, '--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH!, MCP_LOG: 'off' } });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { status: string; key: string; tools: string[]; reply: string };
}

const copies: string[] = [];
afterAll(() => { for (const dir of copies) rmSync(dir, { recursive: true, force: true }); });

/** A copy of the built api/mcp.func whose caches `change` edits; the copy's handler path. */
function copyWith(change: (dir: string, file: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-mcp-code-cache-'));
  copies.push(dir);
  const funcDir = dirname(dirname(loader));
  cpSync(funcDir, dir, { recursive: true });
  const copy = join(dir, loader.slice(funcDir.length));
  for (const file of caches()) change(dirname(copy), file);
  return copy;
}

describe('the built api/mcp', () => {
  test('has a code cache for this Node and for the runtime\'s Node 24', () => {
    expect(caches()).toContain(`mcp.${process.versions.v8}-${process.arch}.cache`);
    expect(caches().some((file) => file.startsWith('mcp.13.'))).toBe(true);
  });

  // As AWS Lambda's Node runtime, on which Vercel Functions run, starts Node (its bootstrap script), for 1 GB.
  const LAMBDA: string[] = lambdaNodeFlags(1024);
  const node24 = nodes.find((node) => node.includes('node24')) ?? (process.versions.node.startsWith('24.') ? process.execPath : undefined);

  test.runIf(node24)('a fresh Node 24 started as AWS Lambda starts it uses the cache made for it, and serves', () => {
    const start = coldStart(node24!, loader, LAMBDA);
    expect(start).toMatchObject({ status: 'used', key: expect.stringMatching(/^13\..*-expose-gc$/), tools: expect.arrayContaining(['chat_with_agent']) });
    expect(caches()).toContain(`mcp.${start.key}.cache`);
  });

  test.each(nodes)('a fresh %s process uses the cache made for its V8 (none made: absent), and serves', (node) => {
    const start = coldStart(node, loader);
    const made = caches().includes(`mcp.${start.key}.cache`);
    expect(start).toMatchObject({ status: made ? 'used' : 'absent', tools: expect.arrayContaining(['chat_with_agent']) });
    expect(start.reply).toContain('cached');
  });

  test.each([
    ['absent', (dir: string, file: string) => rmSync(join(dir, file)), 'absent'],
    ['refused by V8 (its flag hash changed)', (dir: string, file: string) => {
      const bytes = readFileSync(join(dir, file));
      bytes[12] = bytes[12]! ^ 0xff;
      writeFileSync(join(dir, file), bytes);
    }, 'rejected'],
  ])('with its cache %s, it compiles its script and serves tools/list and tools/call', (_, change, status) => {
    const start = coldStart(process.execPath, copyWith(change));
    expect(start).toMatchObject({ status, tools: expect.arrayContaining(['chat_with_agent']) });
    expect(start.reply).toContain('cached');
  });
});
