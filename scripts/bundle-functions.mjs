/**
 * Rewrites each Node function `vercel build` left in <project>/.vercel/output into one ESM bundle, in place
 * (Build Output API v3: the .func directory keeps its .vc-config.json and handler path).
 *
 * @vercel/node ships a function as transpiled files plus traced node_modules; loading them one by one (~80 of
 * ours, and zod's) costs a cold start about 1 ms each on this machine, more than the function's own work.
 * A bundle is one parse.
 * What loads through `import()` (optional dependencies, lazily loaded validators) becomes a chunk of its own,
 * so it costs nothing until a request needs it.
 */

import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import { dependencyCopiesPlugin } from './dependency-copies.mjs';
import { lazyAdditionsPlugin } from './lazy-additions.mjs';
import { lazyFeaturesPlugin } from './lazy-features.mjs';
import { startFromCodeCache, WARM_UP } from './code-cache.mjs';
import { REQUIRE_BANNER } from './script-form.mjs';

const SOURCE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];
/** Modules that load a feature with its first use, each `import()` of them a chunk of its own (lazy-features.mjs). */
export const LAZY_FEATURES = ['lib/limits/token-budgets.ts'];

/** Node functions under `dir` (a .vercel/output/functions tree), as paths of their .func directories. */
function findFunctions(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (!entry.isDirectory()) return [];
    return entry.name.endsWith('.func') ? [path] : findFunctions(path);
  });
}

/** The source file a handler was transpiled from, e.g. api/mcp.js ← api/mcp.ts. */
function sourceOf(projectRoot, handler) {
  const stem = handler.replace(/\.[cm]?js$/, '');
  const source = SOURCE_EXTENSIONS.map((ext) => join(projectRoot, stem + ext)).find(existsSync);
  if (!source) throw new Error(`bundle: no source for handler ${handler} in ${projectRoot}`);
  return source;
}

/** esbuild options that bundle `source` into `outdir`/`name`.js, with what loads through `import()` as chunks. */
export function bundleOptions(name, source, outdir) {
  return {
    metafile: true,
    entryPoints: { [name]: source },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunks/[name]-[hash]',
    // A cold start parses every byte loaded at start: without indentation and with shorter syntax it is a fifth
    // smaller and imports ~2 ms sooner (docs/performance.md). Names are kept, so stack traces still name functions.
    minifyWhitespace: true,
    minifySyntax: true,
    // CommonJS dependencies call require() for Node built-ins, which an ESM bundle has no binding for.
    banner: { js: REQUIRE_BANNER },
    logLevel: 'warning',
    // api/<name>.ts → the project root, whose tools/index.ts the plugin describes. eventsource-parser: read at start
    // by our SSE reader, and by the MCP SDK client of mounts, a chunk (dependency-copies.mjs). The features a
    // deployment may leave unconfigured load as chunks that share nothing with the start file (lazy-features.mjs).
    plugins: [
      lazyAdditionsPlugin(dirname(dirname(resolve(source)))),
      dependencyCopiesPlugin(['eventsource-parser']),
      lazyFeaturesPlugin(dirname(dirname(resolve(source))), LAZY_FEATURES),
    ],
  };
}

/**
 * esbuild's helpers (__require, __commonJS, …) sit in a chunk of their own that every entry imports for its side
 * effects, even one that calls none of them; the chunk has none (it only defines them), and loading one more file
 * costs a cold start ~0.5 ms. So where the entry imports it bare, the import goes, and `metafile` says so too.
 * The chunks that call a helper import it by name, and still do.
 */
export function dropBareRuntimeImport(metafile, entryPoint, workingDir = process.cwd()) {
  const entry = Object.keys(metafile.outputs).find((path) => metafile.outputs[path].entryPoint === entryPoint);
  const file = resolve(workingDir, entry);
  let code = readFileSync(file, 'utf8');
  metafile.outputs[entry].imports = metafile.outputs[entry].imports.filter(({ path, kind }) => {
    const chunk = metafile.outputs[path];
    if (kind !== 'import-statement' || !chunk || Object.keys(chunk.inputs).length > 0) return true;
    const specifier = relative(dirname(file), resolve(workingDir, path)).replaceAll('\\', '/').replaceAll('.', '\\.');
    const bare = new RegExp(`^import ?"${specifier}";\\n?`, 'm');
    if (!bare.test(code)) return true;
    code = code.replace(bare, '');
    return false;
  });
  writeFileSync(file, code);
}

async function bundleFunction(projectRoot, funcDir) {
  const configPath = join(funcDir, '.vc-config.json');
  const config = JSON.parse(readFileSync(configPath, 'utf8'));
  if (config.launcherType !== 'Nodejs') return undefined;
  const source = sourceOf(projectRoot, config.handler);
  for (const entry of readdirSync(funcDir)) {
    if (entry !== '.vc-config.json') rmSync(join(funcDir, entry), { recursive: true, force: true });
  }
  const { metafile } = await build(bundleOptions(config.handler.replace(/\.[cm]?js$/, ''), source, funcDir));
  dropBareRuntimeImport(metafile, relative(process.cwd(), source));
  console.log(`bundle: ${config.handler} ${describeStartup(metafile, relative(process.cwd(), source))}`);
  writeFileSync(join(funcDir, 'package.json'), '{ "type": "module" }\n');
  const warmUp = WARM_UP[config.handler];
  if (warmUp) {
    const keys = await startFromCodeCache(join(funcDir, config.handler), funcDir, warmUp, config.runtime);
    if (keys.length) console.log(`bundle: ${config.handler} starts from a V8 code cache on V8 ${keys.join(', ')}`);
  }
  // Stack traces name the bundle's functions; without maps, the platform need not load source-map support.
  writeFileSync(configPath, `${JSON.stringify({ ...config, shouldAddSourcemapSupport: false }, null, 2)}\n`);
  return funcDir;
}

const kb = (bytes) => `${Math.round(bytes / 1024)} KB`;

/** What a function loads before its first request (the entry and its static imports), by package, and the rest. */
export function describeStartup({ outputs }, entryPoint) {
  // Chunks that `import()` loads are entry points too; the function's own is the one built from its source.
  const entry = Object.keys(outputs).find((path) => outputs[path].entryPoint === entryPoint);
  const startup = new Set();
  for (const queue = [entry]; queue.length;) {
    const path = queue.pop();
    if (startup.has(path)) continue;
    startup.add(path);
    queue.push(...outputs[path].imports.filter((i) => i.kind === 'import-statement' && outputs[i.path]).map((i) => i.path));
  }
  const byPackage = new Map();
  for (const path of startup) {
    for (const [input, { bytesInOutput }] of Object.entries(outputs[path].inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? 'own code';
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    }
  }
  const total = (paths) => paths.reduce((sum, path) => sum + outputs[path].bytes, 0);
  const parts = [...byPackage].sort((a, b) => b[1] - a[1]).map(([name, bytes]) => `${name} ${kb(bytes)}`).join(', ');
  const onDemand = Object.keys(outputs).filter((path) => !startup.has(path));
  return `loads ${kb(total([...startup]))} at start (${parts}); ${kb(total(onDemand))} more on demand`;
}

/** Bundles every Node function of the `vercel build` output under `projectRoot`; returns their .func paths. */
export async function bundleFunctions(projectRoot) {
  const functions = findFunctions(join(projectRoot, '.vercel/output/functions'));
  const bundled = await Promise.all(functions.map((dir) => bundleFunction(projectRoot, dir)));
  return bundled.filter(Boolean);
}
