/**
 * What a test run prints: a test's console output, and a child process's stderr through test/support/child-stderr.ts,
 * are shown when that test fails and kept out of the terminal when it passes; all of it is in the output log
 * (test/support/output-log.ts), headed by the test that printed it. Run here as npm test runs it: vitest in its own
 * process, with the settings vitest.config.ts uses, on a scratch project of two tests.
 */

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import config from '../../vitest.config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'agent-mcp-test-output-'));
let run: { status: number | null; stdout: string; stderr: string };
let log: string;

beforeAll(() => {
  // The project's own setting, with the project's reporter writing to the scratch project's log.
  writeFileSync(join(scratch, 'vitest.config.ts'), `import base from '${join(ROOT, 'vitest.config.ts')}';
    export default { test: {
      include: ['*.test.ts'], silent: base.test.silent,
      reporters: ['default', ['${join(ROOT, 'test/support/output-log.ts')}', { file: 'out/test-output.log' }]],
    } };\n`);
  const script = "console.error('the child said ' + process.argv[1])";
  writeFileSync(join(scratch, 'two.test.ts'), `
    import { spawn } from 'node:child_process';
    import { expect, test } from 'vitest';
    import { stderrToConsole } from '${join(ROOT, 'test/support/child-stderr.ts')}';
    const child = (word: string) => new Promise((resolve) => {
      const c = spawn(process.execPath, ['-e', ${JSON.stringify(script)}, word], { stdio: ['ignore', 'ignore', 'pipe'] });
      stderrToConsole(c);
      c.on('close', resolve);
    });
    test('a passing test', async () => { console.warn('expected warning of a passing test'); await child('quietly'); });
    test('a failing test', async () => { console.warn('what the failing test printed'); await child('loudly'); expect(1).toBe(2); });
  `);
  run = spawnSync(join(ROOT, 'node_modules/.bin/vitest'), ['run', '--config', 'vitest.config.ts'],
    { cwd: scratch, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CI: '1' } });
  log = readFileSync(join(scratch, 'out/test-output.log'), 'utf8');
}, 60_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a test run', () => {
  test('of the suite (vitest.config.ts) writes the output log', () => {
    expect(config.test?.reporters).toContain('./test/support/output-log.ts');
  });

  test('shows what a failing test printed, its child\'s stderr included, and nothing a passing test printed', () => {
    const terminal = run.stdout + run.stderr;
    expect(run.status).toBe(1);
    expect(terminal).toContain('what the failing test printed');
    expect(terminal).toContain('the child said loudly');
    expect(terminal).not.toContain('expected warning of a passing test');
    expect(terminal).not.toContain('the child said quietly');
  });

  test('keeps everything in the log, each entry headed by its test, and says where the log is', () => {
    expect(log).toContain('stderr | two.test.ts > a passing test\nexpected warning of a passing test\n');
    expect(log).toContain('stderr | two.test.ts > a passing test\nthe child said quietly\n');
    expect(log).toContain('stderr | two.test.ts > a failing test\nwhat the failing test printed\n');
    expect(log).toContain('stderr | two.test.ts > a failing test\nthe child said loudly\n');
    expect(log).toMatch(/seconds per test file \(import and tests, in its worker\), slowest first:\n +\d+\.\d s {2}two\.test\.ts\n$/);
    expect(run.stdout).toContain('Console output of every test, passed ones included: out/test-output.log');
  });
});
