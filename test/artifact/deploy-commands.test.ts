/**
 * The README's deploy commands, held to the Vercel CLI's own behaviour offline: the real CLI (the `vercel`
 * devDependency) runs them in copies of this project against a stand-in of the Vercel API on loopback
 * (test/support/vercel-api.ts), up to the upload.
 * - `npm run build && npx vercel deploy --prebuilt`: the build leaves no project link of its own making, so the
 *   CLI links a real project through its own flow (the prompt, here `--yes`) and deploys the preview build.
 * - `npm run build -- --prod && npx vercel deploy --prebuilt --prod`: the CLI deploys a prebuilt output to
 *   production only if it was built for production; `npm run build -- --prod` is that build.
 */

import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startVercelApi, type VercelApi } from '../support/vercel-api.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VERCEL = join(ROOT, 'node_modules/.bin/vercel');
const PROJECT_FILES = ['api', 'lib', 'tools', 'public', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'vercel.json'];
/** The project link an earlier `npm run build` wrote, which `vercel deploy` then trusted. */
const MADE_UP = 'prj_offline';

const scratch: string[] = [];
let api: VercelApi;
beforeAll(async () => { api = await startVercelApi(); });
afterAll(async () => {
  await api?.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

const readLink = (dir: string): { projectId?: string; orgId?: string } | undefined =>
  existsSync(join(dir, '.vercel/project.json')) ? JSON.parse(readFileSync(join(dir, '.vercel/project.json'), 'utf8')) : undefined;

/** A directory holding `files` of this checkout (and .vercel/ entries), as a user's checkout would. */
function copyOf(files: string[], vercel: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-mcp-deploy-'));
  scratch.push(dir);
  for (const file of files) cpSync(join(ROOT, file), join(dir, file), { recursive: true });
  mkdirSync(join(dir, '.vercel'), { recursive: true });
  for (const entry of vercel) cpSync(join(ROOT, '.vercel', entry), join(dir, '.vercel', entry), { recursive: true });
  return dir;
}

/** `npx vercel deploy …` in `dir`, against the stand-in API (served by this process: the CLI runs beside it). */
async function deploy(dir: string, args: string[]) {
  const from = api.requests.length;
  const child = spawn(VERCEL, ['deploy', ...args, '--yes', '--token', 'testtoken', '--api', api.url, '--global-config', join(dir, '.global')], {
    cwd: dir, env: { ...process.env, VERCEL_TELEMETRY_DISABLED: '1' }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000,
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output, requests: api.requests.slice(from) };
}

const deployment = (requests: VercelApi['requests']) => requests.find((r) => r.method === 'POST' && /\/deployments$/.test(r.path));

// What `npm run build` (run by npm test before these tests) left. A link you made yourself stays yours.
const left = readLink(ROOT);
const linkedByYou = left?.projectId !== undefined && left.projectId !== MADE_UP;

describe.skipIf(linkedByYou)('npm run build && npx vercel deploy --prebuilt, in a checkout nobody linked', () => {
  test('the build leaves no project link: not one made up, which the CLI would trust', () => {
    expect(left).toBeUndefined();
  });

  test('the CLI then links a real project through its own flow and deploys the preview build', async () => {
    const dir = copyOf(['package.json', 'vercel.json'], ['output', ...(left ? ['project.json'] : [])]);
    const { output, requests } = await deploy(dir, ['--prebuilt']);
    const name = basename(dir);
    expect(requests.map((r) => `${r.method} ${r.path}`), output).toEqual(expect.arrayContaining([
      `GET /v9/projects/${name}`, 'POST /v1/projects', 'POST /v13/deployments',
    ]));
    expect(requests.some((r) => r.path.includes(MADE_UP))).toBe(false);
    expect(readLink(dir)).toMatchObject({ projectId: `prj_${name}`, orgId: 'team_test' });
    const created = deployment(requests)!;
    expect(created.query.get('prebuilt')).toBe('1');
    expect(JSON.parse(created.body).target).toBeUndefined();
  });
});

describe('--prod needs a production build', () => {
  test('the CLI refuses to deploy the preview build of npm run build to production, naming the mismatch', async () => {
    const dir = copyOf(['package.json', 'vercel.json'], ['output']);
    const { code, output, requests } = await deploy(dir, ['--prebuilt', '--prod']);
    expect(code).toBe(1);
    expect(output).toContain('was built with target environment "preview"');
    expect(deployment(requests)).toBeUndefined();
  });

  describe('npm run build -- --prod, in a copy of the project', () => {
    let dir: string;
    let build: ReturnType<typeof spawnSync>;
    beforeAll(() => {
      dir = copyOf(PROJECT_FILES);
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      // VERCEL_INSTALL_COMPLETED: the dependencies are in place (the symlink); the CLI must not install through it.
      build = spawnSync(process.execPath, ['scripts/build.mjs', '--prod'], {
        cwd: dir, encoding: 'utf8', env: { ...process.env, VERCEL_INSTALL_COMPLETED: '1' }, timeout: 240_000,
      });
    }, 300_000);

    test('builds for production and leaves no project link', () => {
      expect(build.status, `${build.stdout}${build.stderr}`).toBe(0);
      expect(JSON.parse(readFileSync(join(dir, '.vercel/output/builds.json'), 'utf8')).target).toBe('production');
      expect(readLink(dir)).toBeUndefined();
      expect(build.stdout).toContain('npx vercel deploy --prebuilt --prod');
    });

    test('which npx vercel deploy --prebuilt --prod then deploys to production', async () => {
      const { output, requests } = await deploy(dir, ['--prebuilt', '--prod']);
      expect(JSON.parse(deployment(requests)?.body ?? '{}').target, output).toBe('production');
    });
  });
});
