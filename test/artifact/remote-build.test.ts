/**
 * What a remote Vercel build (git-push preview, `vercel deploy` without --prebuilt) deploys: the build runs in
 * a copy of the project, as Vercel's build container does, with the two variables Vercel's build step sets
 * (VERCEL=1, CI=1). @vercel/node runs our `vercel-build` script before it compiles api/*.ts, so the function it
 * emits must be the esbuild bundle, like `npm run build`'s, and not the source tree with its traced node_modules.
 */

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error plain ESM helper without type declarations
import { loadBuiltFunction } from '../../scripts/load-built.mjs';
// @ts-expect-error plain ESM script without type declarations
import { BUNDLE_DIR, STUB_MARKER } from '../../scripts/vercel-build.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PROJECT_FILES = ['api', 'lib', 'tools', 'public', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'vercel.json'];
const copy = mkdtempSync(join(tmpdir(), 'agent-mcp-remote-build-'));
const output = join(copy, '.vercel/output');
let build: ReturnType<typeof spawnSync>;

beforeAll(() => {
  for (const file of PROJECT_FILES) cpSync(join(ROOT, file), join(copy, file), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  mkdirSync(join(copy, '.vercel'));
  // The container holds the project's settings (`vercel pull`); a link is not needed to build.
  writeFileSync(join(copy, '.vercel/project.json'), JSON.stringify({ settings: { framework: null } }));
  build = spawnSync(join(ROOT, 'node_modules/.bin/vercel'), ['build', '--yes'], {
    cwd: copy,
    encoding: 'utf8',
    // VERCEL_INSTALL_COMPLETED: the dependencies are in place (the symlink), as after the container's install step.
    env: { ...process.env, CI: '1', VERCEL_INSTALL_COMPLETED: '1', VERCEL_TELEMETRY_DISABLED: '1' },
  });
}, 180_000);
afterAll(() => rmSync(copy, { recursive: true, force: true }));

const filesUnder = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));

/**
 * What a function deploys: its files, and those its .vc-config.json maps from the project (`filePathMap`: `vercel
 * build` writes files it did not change, such as vercel.json's includeFiles, as paths instead of copies).
 */
function deployedFiles(funcDir: string): Map<string, string> {
  const { filePathMap = {} } = JSON.parse(readFileSync(join(funcDir, '.vc-config.json'), 'utf8')) as { filePathMap?: Record<string, string> };
  return new Map([
    ...filesUnder(funcDir).map((file): [string, string] => [file, join(funcDir, file)]),
    ...Object.entries(filePathMap).map(([file, source]): [string, string] => [file, join(copy, source)]),
  ]);
}

/** The output with api/mcp.func laid out as deployed (its mapped files copied in); the output's path. */
function deployedOutput(): string {
  const deployed = join(copy, '.vercel/deployed');
  rmSync(deployed, { recursive: true, force: true });
  for (const [file, source] of deployedFiles(join(output, 'functions/api/mcp.func'))) {
    mkdirSync(dirname(join(deployed, 'functions/api/mcp.func', file)), { recursive: true });
    cpSync(source, join(deployed, 'functions/api/mcp.func', file));
  }
  return deployed;
}

describe('a remote Vercel build (VERCEL=1 and CI=1, in a copy of the project)', () => {
  test('runs the vercel-build script and succeeds', () => {
    expect(build.status, `${build.stdout}\n${build.stderr}`).toBe(0);
    const functions = readdirSync(join(ROOT, 'api')).filter((f) => f.endsWith('.ts')).length;
    expect(build.stdout).toContain(`vercel-build: ${functions} function(s) now load their bundle`);
  });

  test('checks tools/index.ts as start-up does once, before the first function, not once per function', () => {
    expect(String(build.stdout).match(/build: tools\/index\.ts builds as start-up builds it/g)).toHaveLength(1);
    expect(String(build.stdout).indexOf('tools/index.ts builds as start-up')).toBeLessThan(String(build.stdout).indexOf('vercel-build: api/'));
  });

  test('ships api/mcp as its esbuild bundle in script form with its code cache, without the traced source tree or node_modules', () => {
    const files = [...deployedFiles(join(output, 'functions/api/mcp.func')).keys()];
    expect(files).toEqual(expect.arrayContaining([`${BUNDLE_DIR}/mcp/index.js`, `${BUNDLE_DIR}/mcp/index.script.js`,
      `${BUNDLE_DIR}/mcp/index.${process.versions.v8}-${process.arch}.cache`]));
    // The container's Node is the runtime's: its cache for a Node started with --expose-gc, as AWS Lambda starts it.
    expect(files).toContain(`${BUNDLE_DIR}/mcp/index.${process.versions.v8}-${process.arch}-expose-gc.cache`);
    expect(files.some((file) => file.startsWith(`${BUNDLE_DIR}/mcp/chunks/chat-schema-`))).toBe(true);
    expect(files.filter((file) => file.startsWith('node_modules/') || file.startsWith('lib/'))).toEqual([]);
    const handler = JSON.parse(readFileSync(join(output, 'functions/api/mcp.func/.vc-config.json'), 'utf8')).handler;
    expect(readFileSync(join(output, 'functions/api/mcp.func', handler), 'utf8')).toContain(`export { default } from '../${BUNDLE_DIR}/mcp/index.js'`);
  });

  test('the bundled function starts from its code cache, answers tools/list and runs a tools/call through the demo agent', async () => {
    const deployed = deployedOutput();
    const fn = await loadBuiltFunction('api/mcp', deployed);
    const { codeCache } = await import(pathToFileURL(join(deployed, 'functions/api/mcp.func', BUNDLE_DIR, 'mcp/index.js')).href);
    expect(codeCache.status).toBe('used');
    const call = (id: number, method: string, params = {}) => fn.fetch(new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    })).then((response: Response) => response.json());
    expect((await call(1, 'tools/list')).result.tools.map((t: { name: string }) => t.name)).toContain('chat_with_agent');
    const reply = await call(2, 'tools/call', { name: 'chat_with_agent', arguments: { message: 'remote build' } });
    expect(reply.result.structuredContent).toMatchObject({ agent_id: 'demo', reply: expect.stringContaining('remote build') });
  });

  test('the discovery functions and the usage page are bundled too', () => {
    for (const name of ['wk-mcp', 'wk-oauth-protected-resource', 'oauth', 'usage']) {
      expect(filesUnder(join(output, `functions/api/${name}.func`))).toContain(`${BUNDLE_DIR}/${name}/index.js`);
    }
  });
});

describe('npm run build in this checkout (VERCEL=1 from the CLI, no CI)', () => {
  test('leaves every api/*.ts as written and writes no bundle next to it', () => {
    for (const file of readdirSync(join(ROOT, 'api'))) {
      expect(readFileSync(join(ROOT, 'api', file), 'utf8').startsWith(STUB_MARKER), file).toBe(false);
    }
    expect(existsSync(join(ROOT, BUNDLE_DIR))).toBe(false);
  });

  test('still deploys bundled functions: api/mcp.func holds no node_modules', () => {
    const files = filesUnder(join(ROOT, '.vercel/output/functions/api/mcp.func'));
    expect(files).toContain('api/mcp.js');
    expect(files.some((file) => file.startsWith('node_modules/'))).toBe(false);
  });
});
