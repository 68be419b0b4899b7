/**
 * scripts/lazy-features.mjs: a feature's module that our code loads through import() becomes a chunk holding a copy
 * of every module of ours it imports, so the start file, which imports some of those modules too, imports no chunk;
 * without the plugin esbuild puts the shared code in a chunk the start file imports. A module not listed keeps
 * esbuild's splitting. Built with esbuild from a fixture: an entry and a feature sharing one module.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';
import { afterAll, beforeAll, expect, test } from 'vitest';
// @ts-expect-error plain ESM script without type declarations
import { lazyFeaturesPlugin } from '../../scripts/lazy-features.mjs';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-mcp-lazy-features-'));
  writeFileSync(join(dir, 'shared.ts'), 'export const greet = (name: string): string => `hello ${name}`;\n');
  writeFileSync(join(dir, 'feature.ts'), "import { greet } from './shared.js';\nexport const feature = (): string => greet('feature');\n");
  writeFileSync(join(dir, 'other.ts'), "import { greet } from './shared.js';\nexport const other = (): string => greet('other');\n");
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

let builds = 0;

/** The entry imports shared.ts, and through import() each module of `lazy`, which import shared.ts too. */
async function bundle(plugins: Plugin[], lazy = ['feature']): Promise<{ outputs: Metafile['outputs']; entry: string }> {
  writeFileSync(join(dir, 'entry.ts'), [
    "import { greet } from './shared.js';",
    "export const start = (): string => greet('start');",
    ...lazy.map((name) => `export const ${name} = () => import('./${name}.js').then((m) => m.${name}());`),
  ].join('\n'));
  const { metafile } = await build({
    entryPoints: { entry: join(dir, 'entry.ts') }, outdir: join(dir, `out${builds++}`), bundle: true, splitting: true, format: 'esm',
    platform: 'node', metafile: true, write: true, absWorkingDir: dir, logLevel: 'silent', plugins,
  });
  return { outputs: metafile.outputs, entry: Object.keys(metafile.outputs).find((path) => metafile.outputs[path]!.entryPoint === 'entry.ts')! };
}

const staticImports = (output: Metafile['outputs'][string]) => output.imports.filter((i) => i.kind === 'import-statement');
const sharedIn = (output: Metafile['outputs'][string]) => Object.keys(output.inputs).filter((input) => input.startsWith('shared.ts'));

test('without it, the code the feature shares with the start file is a chunk the start file imports', async () => {
  const { outputs, entry } = await bundle([]);
  expect(sharedIn(outputs[entry]!)).toEqual([]);
  expect(staticImports(outputs[entry]!)).toHaveLength(1);
});

test('with it, the start file imports nothing; the feature\'s chunk has its own copy of the shared module, and both work', async () => {
  const { outputs, entry } = await bundle([lazyFeaturesPlugin(dir, ['feature.ts'])]);
  expect(sharedIn(outputs[entry]!)).toEqual(['shared.ts']);
  expect(staticImports(outputs[entry]!)).toEqual([]);
  const chunks = Object.entries(outputs).filter(([path]) => path !== entry && path.endsWith('.js'));
  expect(chunks.flatMap(([, output]) => sharedIn(output))).toEqual(['shared.ts?lazy-feature=0']);

  const built = await import(pathToFileURL(join(dir, entry)).href);
  expect(built.start()).toBe('hello start');
  expect(await built.feature()).toBe('hello feature');
});

test('a module it does not list is split as esbuild splits it', async () => {
  const { outputs, entry } = await bundle([lazyFeaturesPlugin(dir, ['feature.ts'])], ['feature', 'other']);
  expect(staticImports(outputs[entry]!)).toHaveLength(1);
  const chunks = Object.entries(outputs).filter(([path]) => path !== entry && path.endsWith('.js'));
  expect(chunks.flatMap(([, output]) => sharedIn(output)).sort()).toEqual(['shared.ts', 'shared.ts?lazy-feature=0']);
});

test('two features listed each get a copy of their own: neither chunk imports a chunk of copies they would otherwise share', async () => {
  const { outputs, entry } = await bundle([lazyFeaturesPlugin(dir, ['feature.ts', 'other.ts'])], ['feature', 'other']);
  expect(staticImports(outputs[entry]!)).toEqual([]);
  const chunks = Object.entries(outputs).filter(([path]) => path !== entry && path.endsWith('.js'));
  expect(chunks).toHaveLength(2);
  for (const [, output] of chunks) expect(staticImports(output)).toEqual([]);
  expect(chunks.flatMap(([, output]) => sharedIn(output)).sort()).toEqual(['shared.ts?lazy-feature=0', 'shared.ts?lazy-feature=1']);

  const built = await import(pathToFileURL(join(dir, entry)).href);
  expect(await built.feature()).toBe('hello feature');
  expect(await built.other()).toBe('hello other');
});
