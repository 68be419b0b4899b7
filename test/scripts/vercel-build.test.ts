/**
 * scripts/vercel-build.mjs rewrites api/*.ts, so it must do so only in Vercel's build container: never in a
 * developer's checkout, where `npm run build`'s `vercel build` runs it with VERCEL=1 but without CI.
 */

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
// @ts-expect-error plain ESM script without type declarations
import { buildEnv } from '../../scripts/build.mjs';
// @ts-expect-error plain ESM script without type declarations
import { BUNDLE_DIR, isVercelBuildContainer, STUB_MARKER } from '../../scripts/vercel-build.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const copies: string[] = [];
afterEach(() => { for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true }); });

function copyProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-mcp-vercel-build-'));
  copies.push(dir);
  for (const file of ['api', 'lib', 'tools', 'scripts', 'package.json']) cpSync(join(ROOT, file), join(dir, file), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

const snapshot = (dir: string) => Object.fromEntries(readdirSync(join(dir, 'api')).map((f) => [f, readFileSync(join(dir, 'api', f), 'utf8')]));

function runScript(dir: string, env: Record<string, string>) {
  const run = spawnSync(process.execPath, ['scripts/vercel-build.mjs'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH!, ...env } });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

describe('where the vercel-build script may rewrite api/', () => {
  test.each([
    [{ VERCEL: '1', CI: '1' }, true],
    [{ VERCEL: '1' }, false],
    [{ CI: '1' }, false],
    [{ VERCEL: '1', CI: 'true' }, false],
    [{ VERCEL: '1', CI: '1', AGENT_MCP_LOCAL_BUILD: '1' }, false],
    [{}, false],
  ])('%o → %s', (env, expected) => {
    expect(isVercelBuildContainer(env)).toBe(expected);
  });

  test('under npm run build\'s vercel build (VERCEL=1, no CI) it changes nothing and says why', () => {
    const dir = copyProject();
    const before = snapshot(dir);
    expect(runScript(dir, { VERCEL: '1' })).toContain('api/ is left as it is');
    expect(snapshot(dir)).toEqual(before);
    expect(existsSync(join(dir, BUNDLE_DIR))).toBe(false);
  });

  test('npm run build\'s vercel build is never the build container, even from a shell that exports CI=1', () => {
    // The CLI adds VERCEL=1 to the environment npm run build gives it.
    expect(isVercelBuildContainer({ ...buildEnv({ PATH: '/usr/bin', CI: '1' }), VERCEL: '1' })).toBe(false);
    const dir = copyProject();
    const before = snapshot(dir);
    // npm run build says once what the script does there; the script itself says nothing (three times over).
    expect(runScript(dir, { ...buildEnv({ CI: '1' }), VERCEL: '1' })).toBe('');
    expect(snapshot(dir)).toEqual(before);
  });

  test('in the build container it points each function at its bundle, and a second run (one per function) keeps them', async () => {
    const dir = copyProject();
    const functions = readdirSync(join(ROOT, 'api')).filter((f) => f.endsWith('.ts')).length;
    expect(runScript(dir, { VERCEL: '1', CI: '1' })).toContain(`${functions} function(s) now load their bundle`);
    const rewritten = snapshot(dir);
    for (const text of Object.values(rewritten)) expect(text.startsWith(STUB_MARKER)).toBe(true);
    expect(runScript(dir, { VERCEL: '1', CI: '1' })).toContain('0 function(s) now load their bundle');
    expect(snapshot(dir)).toEqual(rewritten);
    const bundled = await import(join(dir, BUNDLE_DIR, 'mcp/index.js'));
    expect(typeof bundled.default.fetch).toBe('function');
  });
});
