/**
 * `npm run vercel-build`: makes Vercel's remote builds (git-push previews, `vercel deploy` without --prebuilt)
 * deploy the same esbuild bundle as `npm run build`.
 *
 * Vercel runs a `vercel-build` script, when package.json has one, before @vercel/node compiles api/*.ts
 * (@vercel/node `build`: runPackageJsonScript(["vercel-build", "now-build"])); @vercel/node has no bundling
 * option of its own. So, in Vercel's build container only, this script bundles each function into
 * .vercel-bundle/<name>/ and replaces api/<name>.ts with a two-line re-export of that bundle; @vercel/node then
 * compiles the two lines and its file tracing ships the bundle with them.
 *
 * It rewrites api/ only where both VERCEL=1 and CI=1: Vercel's build step sets both (CI is "only exposed during
 * the build step"). The `vercel build` of `npm run build` sets VERCEL=1 but not CI, and marks itself with
 * AGENT_MCP_LOCAL_BUILD (in case the shell exports CI=1), so a checkout on a developer's machine is never touched:
 * there the script does nothing, silently (`npm run build` bundles the .vercel/output copy instead,
 * scripts/bundle-functions.mjs, and says so once); elsewhere outside the container it says why it leaves api/.
 */

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { checkCode } from './build.mjs';
import { bundleOptions, describeStartup, dropBareRuntimeImport } from './bundle-functions.mjs';
import { startFromCodeCache, WARM_UP } from './code-cache.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Where the bundles go, next to api/ so that the re-exports stay relative and file tracing finds them. */
export const BUNDLE_DIR = '.vercel-bundle';
/** The first line of a rewritten function; a file that starts with it is already bundled. */
export const STUB_MARKER = '// @ts-nocheck -- written by scripts/vercel-build.mjs in Vercel\'s build container';

/** True only in Vercel's build step, the one place where api/ may be rewritten. */
export function isVercelBuildContainer(env = process.env) {
  return env.VERCEL === '1' && env.CI === '1' && env.AGENT_MCP_LOCAL_BUILD === undefined;
}

/** True when a function of `projectRoot` already loads its bundle: an earlier run of this script built the code. */
function bundled(projectRoot) {
  const apiDir = join(projectRoot, 'api');
  return readdirSync(apiDir).some((name) => name.endsWith('.ts') && readFileSync(join(apiDir, name), 'utf8').startsWith(STUB_MARKER));
}

/** Bundles every api/*.ts of `projectRoot` and points the function at its bundle; returns the rewritten files. */
export async function bundleForRemoteBuild(projectRoot) {
  const apiDir = join(projectRoot, 'api');
  const rewritten = [];
  mkdirSync(join(projectRoot, BUNDLE_DIR), { recursive: true });
  writeFileSync(join(projectRoot, BUNDLE_DIR, 'package.json'), '{ "type": "module" }\n');
  // @vercel/node runs this script once per function: a function already pointing at its bundle is left alone.
  for (const file of readdirSync(apiDir).filter((name) => name.endsWith('.ts')).sort()) {
    const path = join(apiDir, file);
    if (readFileSync(path, 'utf8').startsWith(STUB_MARKER)) continue;
    const name = file.replace(/\.ts$/, '');
    const outdir = join(projectRoot, BUNDLE_DIR, name);
    rmSync(outdir, { recursive: true, force: true });
    const { metafile } = await build({ ...bundleOptions('index', path, outdir), absWorkingDir: projectRoot });
    dropBareRuntimeImport(metafile, `api/${file}`, projectRoot);
    console.log(`vercel-build: api/${file} ${describeStartup(metafile, `api/${file}`)}`);
    // As npm run build does (scripts/code-cache.mjs). The container runs the project's Node, the runtime's major (so
    // its caches are the runtime's, with and without --expose-gc), and the script and its caches reach the function
    // through vercel.json's includeFiles, since file tracing cannot follow a file read at start.
    const warmUp = WARM_UP[`api/${name}.js`];
    if (warmUp) {
      const runtime = `nodejs${process.versions.node.split('.')[0]}.x`;
      const keys = await startFromCodeCache(join(outdir, 'index.js'), projectRoot, warmUp, runtime);
      if (keys.length) console.log(`vercel-build: api/${file} starts from a V8 code cache on V8 ${keys.join(', ')}`);
    }
    const target = `../${BUNDLE_DIR}/${name}/index.js`;
    writeFileSync(path, `${STUB_MARKER}: this function's bundle.\nexport * from '${target}';\nexport { default } from '${target}';\n`);
    rewritten.push(path);
  }
  return rewritten;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Under npm run build the script has nothing to do and npm run build says so once (scripts/build.mjs); elsewhere
  // (a remote build whose project hides CI from the build) the build log says why the functions are not bundled.
  if (process.env.AGENT_MCP_LOCAL_BUILD === '1') {
    // nothing: npm run build bundles .vercel/output itself
  } else if (!isVercelBuildContainer()) {
    console.log('vercel-build: not in Vercel\'s build container (VERCEL=1 and CI=1, not npm run build), so api/ is left as it is');
  } else {
    if (!existsSync(join(ROOT, 'api'))) throw new Error('vercel-build: no api/ directory');
    // As npm run build does: code start-up would refuse stops the build (checked once, before the first function).
    if (!bundled(ROOT) && !checkCode(ROOT)) process.exit(1);
    const rewritten = await bundleForRemoteBuild(ROOT);
    console.log(`vercel-build: ${rewritten.length} function(s) now load their bundle`);
  }
}
