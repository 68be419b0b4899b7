import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:quick`: the tests to run first, the ones that run in the test process alone. A test file is left out
 * when it, or a module of the project it imports, can start another program (node:child_process: servers and scripts in their
 * own processes, redis-server, real clients, the tools .cache/ holds; playwright: the browser). Worked out from the
 * sources on each run, so a new test file lands on the right side by itself. `npm test` runs everything.
 */
const ROOT = dirname(fileURLToPath(import.meta.url));
const STARTS_A_PROGRAM = /from '(node:child_process|playwright-core)'/;

function startsAProgram(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file) || !existsSync(file)) return false;
  seen.add(file);
  const source = readFileSync(file, 'utf8');
  if (STARTS_A_PROGRAM.test(source)) return true;
  return [...source.matchAll(/from '(\.{1,2}\/[^']+)'/g)].some(([, specifier]) => {
    const target = resolve(dirname(file), specifier!);
    return [target, target.replace(/\.js$/, '.ts')].some((candidate) => startsAProgram(candidate, seen));
  });
}

const testFiles = (readdirSync(join(ROOT, 'test'), { recursive: true }) as string[])
  .filter((file) => file.endsWith('.test.ts')).map((file) => `test/${file}`);

export default mergeConfig(base, defineConfig({
  test: { exclude: testFiles.filter((file) => startsAProgram(join(ROOT, file))) },
}));
