/**
 * `npm run build`: `vercel build` offline → .vercel/output, then each function bundled in place
 * (scripts/bundle-functions.mjs). The result is what `vercel deploy --prebuilt` uploads and what our artifact
 * tests and benchmarks load.
 *
 * Without a linked project the CLI asks the Vercel API who we are and fails offline, so a hand-written
 * .vercel/project.json stands in (shared/reference/x402-upstash-vercel.md §C7). vercel.json sets an empty
 * buildCommand: the CLI would otherwise run our `build` script, which is this file.
 */

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleFunctions } from './bundle-functions.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The environment `vercel build` runs in: the caller's, without telemetry, and marked as this local build so that
 * the vercel-build script never rewrites api/ here, even in a shell that exports CI=1 (scripts/vercel-build.mjs).
 */
export function buildEnv(env = process.env) {
  return { ...env, VERCEL_TELEMETRY_DISABLED: '1', AGENT_MCP_LOCAL_BUILD: '1' };
}

/** Runs `vercel build` offline in `projectRoot` (ours, or a benchmark peer project). */
export function vercelBuild(projectRoot) {
  const project = join(projectRoot, '.vercel/project.json');
  if (!existsSync(project)) {
    mkdirSync(join(projectRoot, '.vercel'), { recursive: true });
    writeFileSync(project, `${JSON.stringify({ projectId: 'prj_offline', orgId: 'team_offline', settings: { framework: null } })}\n`);
    console.log(`build: wrote ${project} for an offline build`);
  }
  const result = spawnSync(join(ROOT, 'node_modules/.bin/vercel'), ['build', '--yes'], {
    cwd: projectRoot,
    stdio: 'inherit',
    env: buildEnv(),
  });
  if (result.status !== 0) throw new Error(`build: vercel build failed in ${projectRoot} (exit ${result.status ?? result.signal})`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  vercelBuild(ROOT);
  const bundled = await bundleFunctions(ROOT);
  console.log(`build: bundled ${bundled.length} function(s): ${bundled.map((dir) => dir.slice(ROOT.length)).join(', ')}`);
}
