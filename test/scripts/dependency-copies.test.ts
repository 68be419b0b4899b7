/**
 * scripts/dependency-copies.mjs: a package our start code imports, and a dependency in a lazy chunk imports too,
 * stays in the start file, and the chunk gets a copy of its own; without the plugin esbuild makes the package a
 * chunk that the start file imports. Built with esbuild from a fixture: an entry importing eventsource-parser and,
 * through import(), a package in node_modules that imports eventsource-parser/stream (as the MCP SDK client does).
 */

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';
import { afterAll, beforeAll, expect, test } from 'vitest';
// @ts-expect-error plain ESM script without type declarations
import { dependencyCopiesPlugin } from '../../scripts/dependency-copies.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-mcp-dependency-copies-'));
  mkdirSync(join(dir, 'node_modules/client'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules/eventsource-parser'), join(dir, 'node_modules/eventsource-parser'));
  writeFileSync(join(dir, 'node_modules/client/package.json'), '{ "name": "client", "type": "module", "main": "index.js" }\n');
  writeFileSync(join(dir, 'node_modules/client/index.js'),
    "import { EventSourceParserStream } from 'eventsource-parser/stream';\nexport const stream = () => new EventSourceParserStream();\n");
  writeFileSync(join(dir, 'entry.mjs'), [
    "import { createParser } from 'eventsource-parser';",
    'export const parse = (text) => { const events = []; createParser({ onEvent: (e) => events.push(e.data) }).feed(text); return events; };',
    "export const client = () => import('client');",
  ].join('\n'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bundle(plugins: Plugin[]): Promise<{ outputs: Metafile['outputs']; entry: string }> {
  const { metafile } = await build({
    entryPoints: { entry: join(dir, 'entry.mjs') }, outdir: join(dir, 'out'), bundle: true, splitting: true, format: 'esm',
    platform: 'node', metafile: true, write: true, absWorkingDir: dir, logLevel: 'silent', plugins,
  });
  return { outputs: metafile.outputs, entry: Object.keys(metafile.outputs).find((path) => metafile.outputs[path]!.entryPoint)! };
}

const parserIn = (output: Metafile['outputs'][string]) => Object.keys(output.inputs).filter((input) => input.includes('eventsource-parser/dist/index.js'));

test('without it, esbuild makes the package a chunk the start file imports', async () => {
  const { outputs, entry } = await bundle([]);
  expect(parserIn(outputs[entry]!)).toEqual([]);
  expect(outputs[entry]!.imports.filter((i) => i.kind === 'import-statement')).toHaveLength(1);
});

test('with it, the start file holds the package and imports nothing; the lazy chunk has its own copy, and both work', async () => {
  const { outputs, entry } = await bundle([dependencyCopiesPlugin(['eventsource-parser'])]);
  expect(parserIn(outputs[entry]!)).toHaveLength(1);
  expect(outputs[entry]!.imports.filter((i) => i.kind === 'import-statement')).toEqual([]);
  const lazy = Object.entries(outputs).filter(([path]) => path !== entry && path.endsWith('.js'));
  expect(lazy.flatMap(([, output]) => parserIn(output))).toEqual([expect.stringMatching(/eventsource-parser\/dist\/index\.js\?dependency-copy$/)]);

  const built = await import(pathToFileURL(join(dir, entry)).href);
  expect(built.parse('data: one\n\ndata: two\n\n')).toEqual(['one', 'two']);
  const { stream } = await built.client();
  const source = new ReadableStream<string>({ start(controller) { controller.enqueue('data: three\n\n'); controller.close(); } });
  const reader = source.pipeThrough(stream()).getReader() as ReadableStreamDefaultReader<{ data: string }>;
  expect((await reader.read()).value?.data).toBe('three');
});
