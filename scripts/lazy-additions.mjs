/**
 * An esbuild plugin for the function bundles: a deployment's additions (tools/index.ts) listed from a description
 * written at build time, their code (and zod) loaded with the first call (lib/define/lazy.ts). Listing zod-defined
 * tools would otherwise load zod, a 210 KB chunk, on every cold start (docs/tools.md "Cold start").
 *
 * The description comes from running tools/index.ts here, at build time: what it exports must not depend on the
 * runtime's environment (read variables in handlers, not at module scope). Additions that cannot be described
 * (lib/define/manifest.ts says why), and an empty list, are bundled as they are.
 */

import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const NAMESPACE = 'agent-mcp-lazy-additions';

/** The description of `projectRoot`'s tools/index.ts, or a reason it stays on the start path. */
async function describeProject(projectRoot) {
  const dir = join(projectRoot, 'node_modules/.cache/agent-mcp-additions');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `describe-${process.pid}-${randomUUID()}.mjs`);
  try {
    await build({
      stdin: {
        contents: `import additions from './tools/index.ts';\nimport { describeAdditions } from './lib/define/manifest.ts';\nexport default () => describeAdditions(additions);\n`,
        resolveDir: projectRoot, loader: 'ts', sourcefile: 'describe-additions.ts',
      },
      outfile, bundle: true, format: 'esm', platform: 'node', packages: 'external', logLevel: 'warning',
    });
    const manifest = (await import(pathToFileURL(outfile).href)).default();
    const handlers = Object.values(manifest).flat().length - (manifest.skills?.length ?? 0);
    return handlers > 0 ? { manifest } : { reason: 'it adds nothing with code' };
  } catch (error) {
    if (error instanceof TypeError) return { reason: error.message };
    throw error;
  } finally {
    rmSync(outfile, { force: true });
  }
}

/** Replaces lib/app.ts's import of tools/index.ts with its description and a lazy import of the module itself. */
export function lazyAdditionsPlugin(projectRoot) {
  return {
    name: 'lazy-additions',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^\.\.\/tools\/index\.js$/ }, (args) =>
        args.importer === join(projectRoot, 'lib/app.ts') ? { path: 'tools/index', namespace: NAMESPACE } : undefined);
      pluginBuild.onLoad({ filter: /.*/, namespace: NAMESPACE }, async () => {
        const { manifest, reason } = await describeProject(projectRoot);
        const tools = JSON.stringify(join(projectRoot, 'tools/index.ts'));
        if (!manifest) {
          console.log(`bundle: tools/index.ts loads at start (${reason})`);
          return { contents: `export { default } from ${tools};`, resolveDir: projectRoot, loader: 'js' };
        }
        console.log('bundle: tools/index.ts is listed from its description; its code loads with the first call');
        return {
          contents: `import { lazyAdditions } from ${JSON.stringify(join(projectRoot, 'lib/define/lazy.ts'))};\n`
            + `export default lazyAdditions(${JSON.stringify(manifest)}, () => import(${tools}));\n`,
          resolveDir: projectRoot,
          loader: 'js',
        };
      });
    },
  };
}
