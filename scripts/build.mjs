/**
 * `npm run build`: `vercel build` offline → .vercel/output, the artifact Vercel deploys and that our
 * artifact tests and benchmarks load.
 *
 * Without a linked project the CLI asks the Vercel API who we are and fails offline, so a hand-written
 * .vercel/project.json stands in (shared/reference/x402-upstash-vercel.md §C7). vercel.json sets an empty
 * buildCommand: the CLI would otherwise run our `build` script, which is this file.
 */

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PROJECT = `${ROOT}.vercel/project.json`;

if (!existsSync(PROJECT)) {
  mkdirSync(`${ROOT}.vercel`, { recursive: true });
  writeFileSync(PROJECT, `${JSON.stringify({ projectId: 'prj_offline', orgId: 'team_offline', settings: { framework: null } })}\n`);
  console.log('build: wrote .vercel/project.json for an offline build');
}

const result = spawnSync(`${ROOT}node_modules/.bin/vercel`, ['build', '--yes'], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, VERCEL_TELEMETRY_DISABLED: '1' },
});
if (result.status !== 0) {
  console.error(`build: vercel build failed (exit ${result.status ?? result.signal})`);
  process.exit(1);
}
