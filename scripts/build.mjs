/**
 * `npm run build` (`npm run build -- --prod` for production): tools/index.ts checked as start-up checks it
 * (scripts/check-code.ts: a definition start-up refuses stops the build with start-up's line), `vercel build`
 * offline → .vercel/output, then each function bundled in place (scripts/bundle-functions.mjs). The result is what `vercel deploy --prebuilt` uploads
 * and what our artifact tests and benchmarks load.
 *
 * `vercel build` needs project settings, which live in .vercel/project.json: a project you linked (`vercel link`,
 * or the prompt of your first `vercel deploy`) has them, or the CLI fetches them. Unlinked, the build runs on a
 * stand-in holding the settings only, no project id, which the CLI treats as "not linked", and the stand-in is
 * removed afterwards: `vercel deploy --prebuilt` then links a real project, never one made up here. vercel.json
 * sets an empty buildCommand: the CLI would otherwise run our `build` script, which is this file.
 */

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleFunctions } from './bundle-functions.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What `vercel build` reads of a project: its settings (a framework of none: plain functions and public/). */
const SETTINGS = { settings: { framework: null } };
/** The link an earlier `npm run build` made up, which `vercel deploy` would have trusted. */
const OLD_STAND_IN = 'prj_offline';

/**
 * The environment `vercel build` runs in: the caller's, without telemetry, and marked as this local build so that
 * the vercel-build script never rewrites api/ here, even in a shell that exports CI=1 (scripts/vercel-build.mjs).
 * VERCEL_INSTALL_COMPLETED: the dependencies are installed (this script runs from them), so @vercel/node does not
 * run `npm install` in the checkout again.
 */
export function buildEnv(env = process.env) {
  return { ...env, VERCEL_TELEMETRY_DISABLED: '1', AGENT_MCP_LOCAL_BUILD: '1', VERCEL_INSTALL_COMPLETED: '1' };
}

/**
 * The build's first step: what `projectRoot` defines in code built as start-up builds it (scripts/check-code.ts), in
 * a process of its own with no settings. Prints one line either way; false when start-up would refuse the code.
 */
export function checkCode(projectRoot) {
  const result = spawnSync(join(ROOT, 'node_modules/.bin/tsx'), ['scripts/check-code.ts'], {
    cwd: projectRoot,
    stdio: 'inherit',
    env: { PATH: process.env.PATH },
  });
  return result.status === 0;
}

/** The project link in `projectRoot`, as `vercel deploy` would read it, or undefined. */
function readLink(project) {
  try {
    return JSON.parse(readFileSync(project, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Runs `vercel build` offline in `projectRoot` (ours, or a benchmark peer project); `args` go to the CLI (`--prod`
 * builds for production, which `vercel deploy --prebuilt --prod` requires).
 */
export function vercelBuild(projectRoot, args = []) {
  const project = join(projectRoot, '.vercel/project.json');
  if (readLink(project)?.projectId === OLD_STAND_IN) {
    rmSync(project);
    console.log('build: removed the made-up project link an earlier npm run build wrote; vercel deploy links a real one');
  }
  const standIn = !existsSync(project);
  if (standIn) {
    mkdirSync(join(projectRoot, '.vercel'), { recursive: true });
    writeFileSync(project, `${JSON.stringify(SETTINGS)}\n`);
  }
  console.log('build: vercel build on this machine: its "Build not running on Vercel" warning means only that VERCEL_URL and the '
    + 'like are absent, which nothing reads at build time; it runs package.json\'s vercel-build once per function, which '
    + 'changes nothing here (the bundling follows)');
  try {
    const result = spawnSync(join(ROOT, 'node_modules/.bin/vercel'), ['build', '--yes', ...args], {
      cwd: projectRoot,
      stdio: 'inherit',
      env: buildEnv(),
    });
    if (result.status !== 0) throw new Error(`build: vercel build failed in ${projectRoot} (exit ${result.status ?? result.signal})`);
  } finally {
    if (standIn) rmSync(project, { force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  if (!checkCode(ROOT)) process.exit(1);
  vercelBuild(ROOT, args);
  const bundled = await bundleFunctions(ROOT);
  console.log(`build: bundled ${bundled.length} function(s): ${bundled.map((dir) => dir.slice(ROOT.length)).join(', ')}`);
  console.log(`build: deploy it with npx vercel deploy --prebuilt${args.includes('--prod') ? ' --prod' : ''} (the first deploy asks which project to link)`);
}
