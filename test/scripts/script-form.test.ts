/**
 * scripts/script-form.mjs and scripts/code-cache.mjs on a small function bundled with the build's own esbuild
 * options: the script keeps what the module did (strict mode, exports, lazy chunks, stack traces naming its file),
 * the code cache made at build time is used by a fresh process of the same Node, and a cache V8 refuses, a damaged
 * one or none at all leaves a function that still serves.
 */

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error plain ESM script without type declarations
import { bundleOptions, dropBareRuntimeImport } from '../../scripts/bundle-functions.mjs';
// @ts-expect-error plain ESM script without type declarations
import { lambdaNodeFlags, makeCodeCaches, RUNTIME_FLAGS, startFromCodeCache } from '../../scripts/code-cache.mjs';
// @ts-expect-error plain ESM script without type declarations
import { scriptText, toScriptForm } from '../../scripts/script-form.mjs';

const FUNCTION = `
import { setMaxListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
export const answer = 42;
const sloppyThis = (function () { return this; })();
function fail() { throw new Error('boom'); }
export default {
  async fetch(request) {
    const path = new URL(request.url).pathname;
    setMaxListeners(20);
    if (path === '/chunk') return new Response((await import('./lazy.mjs')).word);
    if (path === '/crypto') return new Response(typeof (await import('node:crypto')).createHash);
    if (path === '/throw') { try { fail(); } catch (error) { return new Response(error.stack); } }
    if (path === '/flags') setFlagsFromString('--heap-growing-percent=30');
    return new Response(JSON.stringify({ strict: sloppyThis === undefined, url: import.meta.url }));
  },
};
`;

const work = mkdtempSync(join(tmpdir(), 'agent-mcp-script-form-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Bundles `code` as bundle-functions.mjs bundles api/*.ts, into `<work>/<name>/api/fn.js`; returns that path. */
async function bundled(name: string, code = FUNCTION): Promise<string> {
  const src = join(work, `${name}-src`);
  const out = join(work, name);
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, 'fn.mjs'), code);
  writeFileSync(join(src, 'lazy.mjs'), "export const word = 'lazy';\n");
  const options = { ...bundleOptions('api/fn', join(src, 'fn.mjs'), out), plugins: [], absWorkingDir: work };
  const { metafile } = await build(options);
  dropBareRuntimeImport(metafile, `${name}-src/fn.mjs`, work);
  writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
  return join(out, 'api/fn.js');
}

/** A fresh Node importing `loader` and fetching `paths`: its codeCache status, each reply's text and what it logged. */
function serve(loader: string, paths: string[], env: Record<string, string> = {}, flags: string[] = []): { status: string; key: string; answer: number; replies: string[]; logged: string[] } {
  const script = `
    const fn = await import(${JSON.stringify(pathToFileURL(loader).href)});
    const replies = [];
    for (const path of ${JSON.stringify(paths)}) replies.push(await (await fn.default.fetch(new Request('http://localhost' + path))).text());
    console.log(JSON.stringify({ status: fn.codeCache.status, key: fn.codeCache.key, answer: fn.answer, replies }));`;
  const run = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH!, ...env } });
  expect(run.status, run.stderr).toBe(0);
  const lines = run.stdout.trim().split('\n');
  return { ...JSON.parse(lines.at(-1)!), logged: lines.slice(0, -1) };
}

const warmUp = (...paths: string[]) => paths.map((path) => ({ url: `http://localhost${path}`, method: 'GET', headers: {} }));
const cacheOf = (loader: string) => join(loader, '..', readdirSync(join(loader, '..')).find((file) => file.endsWith('.cache'))!);

describe('a function in script form with its code cache', () => {
  let loader: string;
  beforeAll(async () => {
    loader = await bundled('cached');
    await toScriptForm(loader);
    makeCodeCaches(loader, warmUp('/', '/chunk'), [process.execPath]);
  }, 60_000);

  test('is used by a fresh process of the Node that made it, and serves as the module did', () => {
    const { status, answer, replies } = serve(loader, ['/', '/chunk', '/crypto']);
    expect(status).toBe('used');
    expect(answer).toBe(42);
    expect(JSON.parse(replies[0]!)).toEqual({ strict: true, url: pathToFileURL(loader).href });
    expect(replies.slice(1)).toEqual(['lazy', 'function']);
  });

  test('loads its chunks only when a request asks for them', () => {
    const script = readFileSync(loader.replace(/fn\.js$/, 'fn.script.js'), 'utf8');
    expect(script).toMatch(/__import\("\.\.\/chunks\/lazy-[A-Z0-9]+\.js"\)/);
    expect(script).not.toMatch(/[^_]import\(/);
  });

  test('names the script file in stack traces where it runs, not where its cache was made, at the throwing code', () => {
    // Deployed elsewhere than it was built, as on Vercel.
    const moved = join(work, 'moved');
    cpSync(join(loader, '../..'), moved, { recursive: true });
    const { status, replies: [stack] } = serve(join(moved, 'api/fn.js'), ['/throw']);
    expect(status).toBe('used');
    const file = join(moved, 'api/fn.script.js');
    // V8 before 12 (Node 20) keeps the name the cache was made with: the script's path in the function, the same.
    const name = Number.parseInt(process.versions.v8) < 12 ? 'api/fn.script.js' : file;
    const frame = new RegExp(`at fail \\(${name.replaceAll('.', '\\.')}:(\\d+):(\\d+)\\)`).exec(stack!);
    expect(frame, stack).not.toBeNull();
    const line = readFileSync(file, 'utf8').split('\n')[Number(frame![1]) - 1]!;
    expect(line.slice(Number(frame![2]) - 1)).toMatch(/^new Error\("boom"\)/);
  });
});

describe('a Node started as AWS Lambda starts it (--expose-gc, which enters V8\'s flag hash, and heap sizes)', () => {
  // Without the heap sizes, which Node 20's V8 (this suite's Node, maybe) also hashes.
  const LAMBDA = lambdaNodeFlags().filter((flag: string) => !flag.includes('-space-size'));
  let loader: string;
  beforeAll(async () => {
    loader = await bundled('runtime-flags');
    await toScriptForm(loader);
  }, 60_000);

  test('refuses the cache made without the flag, and says so', () => {
    makeCodeCaches(loader, warmUp('/'), [process.execPath]);
    const plain = readdirSync(join(loader, '..')).find((file) => file.endsWith('.cache'))!;
    // Standing in for a runtime that has no cache of its own: the one made without flags, under its name.
    const standIn = join(loader, '..', plain.replace(/\.cache$/, '-expose-gc.cache'));
    cpSync(join(loader, '..', plain), standIn);
    const { status, logged } = serve(loader, ['/'], {}, LAMBDA);
    rmSync(standIn);
    expect(status).toBe('rejected');
    expect(logged.map((line) => JSON.parse(line).msg)).toEqual(['agent-mcp code cache refused']);
  }, 60_000);

  test('uses the cache made with the flag, while a Node without flags keeps using its own', () => {
    expect(makeCodeCaches(loader, warmUp('/', '/chunk'), [process.execPath], RUNTIME_FLAGS)).toEqual([`${process.versions.v8}-${process.arch}-expose-gc`]);
    expect(serve(loader, ['/', '/chunk'], {}, LAMBDA)).toMatchObject({ status: 'used', key: `${process.versions.v8}-${process.arch}-expose-gc`, replies: [expect.any(String), 'lazy'] });
    expect(serve(loader, ['/'])).toMatchObject({ status: 'used', key: `${process.versions.v8}-${process.arch}` });
  }, 60_000);
});

describe('a cache the function cannot use', () => {
  test.each([
    ['absent', (cache: string) => rmSync(cache), 'absent'],
    ['with a changed header (another V8 or other flags)', (cache: string) => {
      const bytes = readFileSync(cache);
      bytes[12] = bytes[12]! ^ 0xff; // the flag hash
      writeFileSync(cache, bytes);
    }, 'rejected'],
    ['cut short', (cache: string) => truncateSync(cache, 40), 'rejected'],
    ['made for another script', (cache: string) => {
      // By the same Node and flags, so only the source (V8 checks its length) differs.
      const made = spawnSync(process.execPath, ['-e', `require('fs').writeFileSync(${JSON.stringify(cache)}, new (require('vm').Script)('0').createCachedData())`], { env: { PATH: process.env.PATH! } });
      expect(made.status).toBe(0);
    }, 'rejected'],
  ])('%s: the function compiles its script and serves', async (name, damage, expected) => {
    const loader = await bundled(`damaged-${name.split(' ')[0]}`);
    await toScriptForm(loader);
    makeCodeCaches(loader, warmUp('/'), [process.execPath]);
    damage(cacheOf(loader));
    const { status, replies, logged } = serve(loader, ['/', '/chunk']);
    expect(status).toBe(expected);
    expect(JSON.parse(replies[0]!).strict).toBe(true);
    expect(replies[1]).toBe('lazy');
    // A refused cache is said once, as a JSON line; none built for this V8 is the normal case elsewhere, and silent.
    expect(logged.map((line) => JSON.parse(line).msg)).toEqual(expected === 'rejected' ? ['agent-mcp code cache refused'] : []);
  }, 60_000);
});

test('MCP_LOG=off leaves a refused cache unsaid', async () => {
  const loader = await bundled('refused-quiet');
  await toScriptForm(loader);
  makeCodeCaches(loader, warmUp('/'), [process.execPath]);
  truncateSync(cacheOf(loader), 40);
  expect(serve(loader, ['/'], { MCP_LOG: 'off' })).toMatchObject({ status: 'rejected', logged: [] });
}, 60_000);

test('the build keeps no cache that a fresh process would refuse: a warm-up that sets V8 flags changes their hash', async () => {
  const loader = await bundled('flags');
  await toScriptForm(loader);
  expect(() => makeCodeCaches(loader, warmUp('/flags'), [process.execPath])).toThrow(/did not use \(rejected\)/);
  expect(readdirSync(join(loader, '..')).filter((file) => file.endsWith('.cache'))).toEqual([]);
  // As the build runs it: said, and the function serves without a cache.
  const said: string[] = [];
  expect(await startFromCodeCache(await bundled('flags-build'), undefined, warmUp('/flags'), undefined, (line: string) => said.push(line))).toEqual([]);
  expect(said).toEqual([expect.stringMatching(/^code cache: none made with .*did not use \(rejected\)/)]);
  expect(serve(join(work, 'flags-build/api/fn.js'), ['/']).status).toBe('absent');
}, 60_000);

test('a warm-up the function answers 500 leaves no cache, and the build\'s line says why', async () => {
  const loader = await bundled('misconfigured', `export default { async fetch() {
    console.error('[agent-mcp] configuration error: Tool "shout": its input must be an object schema');
    return new Response('{}', { status: 500 });
  } };`);
  const said: string[] = [];
  expect(await startFromCodeCache(loader, undefined, warmUp('/'), undefined, (line: string) => said.push(line))).toEqual([]);
  expect(said).toEqual([expect.stringMatching(
    /^code cache: none made .*make failed \(1\): \[agent-mcp\] configuration error: Tool "shout": its input must be an object schema; Error: code cache: warm-up GET http:\/\/localhost\/ +answered 500\)$/,
  )]);
  expect(readdirSync(join(loader, '..')).filter((file) => file.endsWith('.cache'))).toEqual([]);
}, 60_000);

test('an entry the script form cannot hold (top-level await) stays an ES module, and the build says so', async () => {
  const loader = await bundled('top-level-await', `${FUNCTION}\nexport const ready = await Promise.resolve(true);\n`);
  const said: string[] = [];
  expect(await startFromCodeCache(loader, undefined, warmUp('/'), undefined, (line: string) => said.push(line))).toEqual([]);
  expect(said).toEqual([expect.stringMatching(/stays an ES module \(script form: Top-level await/)]);
  expect(readdirSync(join(loader, '..'))).toEqual(['fn.js']);
  const script = `const fn = await import(${JSON.stringify(pathToFileURL(loader).href)}); console.log(await (await fn.default.fetch(new Request('http://localhost/chunk'))).text());`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(run.stdout.trim()).toBe('lazy');
}, 60_000);

describe('scriptText', () => {
  test('rewrites every import() and nothing else, and keeps strict mode', async () => {
    const text = await scriptText('const a = () => import("./a.js"), b = () => import("node:crypto"); export { a as default, b };');
    expect(text.startsWith('(function(exports,require,module,__import,__import_meta_url){"use strict";')).toBe(true);
    expect(text).toContain('__import("./a.js")');
    expect(text).toContain('__import("node:crypto")');
  });

  test('refuses, rather than changes, a string that reads like an import() call', async () => {
    await expect(scriptText('export const hint = \'call import("./x.js")\';')).rejects.toThrow(/rewrote import\(\)/);
  });

  test('refuses an entry that reads import.meta beyond its url', async () => {
    await expect(scriptText('export const dir = import.meta.dirname;')).rejects.toThrow(/import\.meta/);
  });
});
