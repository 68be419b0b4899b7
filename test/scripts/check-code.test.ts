/**
 * `npm run build` refuses what start-up refuses about the code: a definition in tools/index.ts that `npm start` would
 * stop on stops the build first (scripts/check-code.ts), with the same one line, before `vercel build` runs; in
 * Vercel's build container the vercel-build script does the same before it rewrites api/. What the code asks of the
 * deployment's environment (X402_PAY_TO for a paid tool, AGENTS for an agent it names) stays start-up's.
 */

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const copies: string[] = [];
afterAll(() => { for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true }); });

/** A copy of the project whose tools/index.ts is `additions` (the body of the file after its imports). */
function projectWith(additions: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-mcp-check-code-'));
  copies.push(dir);
  for (const file of ['api', 'lib', 'tools', 'scripts', 'public', 'package.json', 'vercel.json']) cpSync(join(ROOT, file), join(dir, file), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'tools/index.ts'), [
    "import * as z from 'zod';",
    "import { defineTool, type Additions } from '../lib/define/index.js';",
    additions,
    'export default additions;',
  ].join('\n'));
  return dir;
}

const run = (dir: string, command: string, args: string[], env: Record<string, string> = {}) =>
  spawnSync(command, args, { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH!, ...env }, timeout: 60_000 });

const STRING_INPUT = `
const shout = defineTool({ name: 'shout', description: 'Shouts.', input: z.string() as never, run: async () => 'HI' });
const additions: Additions = { tools: [shout] };`;

describe('npm run build with a tool start-up refuses (input: z.string())', () => {
  const dir = projectWith(STRING_INPUT);
  const build = run(dir, process.execPath, ['scripts/build.mjs']);
  // npm start with PORT=0 never listens here: it stops on the same definition first.
  const start = run(dir, TSX, ['scripts/serve.ts'], { PORT: '0' });

  test('npm start refuses it with one configuration-error line naming the tool', () => {
    expect(start.status).toBe(1);
    expect(start.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^agent-mcp: configuration error: Tool "shout": its input must be an object schema/),
    ]);
  });

  test('the build fails with that same line and nothing else on stderr', () => {
    expect(build.status).toBe(1);
    expect(build.stderr.trim()).toBe(start.stderr.trim());
  });

  test('it stops before vercel build: no output is written', () => {
    expect(build.stdout).not.toContain('vercel build');
    expect(existsSync(join(dir, '.vercel/output'))).toBe(false);
  });
});

describe('the remote build (the vercel-build script in Vercel\'s build container) with the same tool', () => {
  test('fails with start-up\'s line and leaves api/ as it was', () => {
    const dir = projectWith(STRING_INPUT);
    const before = readdirSync(join(dir, 'api')).map((f) => readFileSync(join(dir, 'api', f), 'utf8'));
    const remote = run(dir, process.execPath, ['scripts/vercel-build.mjs'], { VERCEL: '1', CI: '1' });
    expect(remote.status).toBe(1);
    expect(remote.stderr).toMatch(/^agent-mcp: configuration error: Tool "shout": its input must be an object schema/);
    expect(readdirSync(join(dir, 'api')).map((f) => readFileSync(join(dir, 'api', f), 'utf8'))).toEqual(before);
    expect(existsSync(join(dir, '.vercel-bundle'))).toBe(false);
  });
});

describe('what the code asks of the environment is left to start-up', () => {
  const dir = projectWith(`
const lookup = defineTool({ name: 'lookup', description: 'Looks up.', input: z.object({ q: z.string() }), paid: true, run: async () => 'found' });
const additions: Additions = {
  tools: [lookup],
  agents: [{ id: 'editor', name: 'Editor', description: 'Edits.', tools: ['agent:writer'], async *reply() { yield 'ok'; } }],
};`);

  test('a paid tool and an agent naming an AGENTS agent pass the check, which says once that settings are start-up\'s', () => {
    const check = run(dir, TSX, ['scripts/check-code.ts']);
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
    expect(check.stdout.trim().split('\n')).toEqual([expect.stringContaining('1 tools, 1 agents')]);
    expect(check.stdout).toContain('the settings of the deployment\'s environment are checked when its functions start');
  });

  test('start-up, which sees the environment, still refuses them where it lacks AGENTS or X402_PAY_TO', () => {
    const start = run(dir, TSX, ['scripts/serve.ts'], { PORT: '0' });
    expect(start.status).toBe(1);
    expect(start.stderr).toContain('names tool "agent:writer", but no agent has id "writer"');
    const writer = JSON.stringify([{ id: 'writer', format: 'platform', url: 'https://writer.example.com/chat' }]);
    const paid = run(dir, TSX, ['scripts/serve.ts'], { PORT: '0', AGENTS: writer });
    expect(paid.status).toBe(1);
    expect(paid.stderr).toContain('Tool "lookup" (tools/index.ts) is marked paid, but X402_PAY_TO is not set');
  });
});
