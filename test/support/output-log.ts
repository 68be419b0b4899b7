/**
 * Test support: a vitest reporter that keeps everything the tests print in one file, since the configs run with
 * `silent: 'passed-only'` (the terminal shows a test's console output only when that test fails). The suite
 * prints a great deal on purpose: refused sign-ins, unreachable stand-ins, oidc-provider's warning about its
 * runtime. Each entry is headed by the test that printed it; the file ends with each test file's time, slowest
 * first, which is where to look before making the suite faster. The file is rewritten by every run.
 * Use: `reporters: ['default', './test/support/output-log.ts']`, or `['./test/support/output-log.ts', { file }]` for
 * another file than .cache/test-output.log.
 */

import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

type ConsoleLog = Parameters<NonNullable<Reporter['onUserConsoleLog']>>[0];

/** How many of the slowest files the summary at the end of the log names. */
const SLOWEST = 25;

export default class OutputLog implements Reporter {
  private vitest!: Vitest;
  private path = '';
  private readonly times: Array<{ file: string; seconds: number }> = [];

  constructor(private readonly options: { file?: string } = {}) {}

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
    this.path = resolve(vitest.config.root, this.options.file ?? '.cache/test-output.log');
  }

  onTestRunStart(): void {
    this.times.length = 0;
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileSync(this.path, `console output of the tests run at ${new Date().toISOString()}, passed ones included\n`);
  }

  onUserConsoleLog(log: ConsoleLog): void {
    const task = log.taskId ? this.vitest.state.idMap.get(log.taskId) : undefined;
    const entity = task && this.vitest.state.getReportedEntity(task);
    const where = !task ? 'outside any test' : [relative(this.vitest.config.root, task.file.filepath), ...(entity && 'fullName' in entity ? [entity.fullName] : [])].join(' > ');
    appendFileSync(this.path, `\n${log.type} | ${where}\n${log.content.endsWith('\n') ? log.content : `${log.content}\n`}`);
  }

  onTestModuleEnd(module: TestModule): void {
    const { collectDuration, setupDuration, duration } = module.diagnostic();
    this.times.push({ file: module.relativeModuleId, seconds: (collectDuration + setupDuration + duration) / 1000 });
  }

  onTestRunEnd(): void {
    const slowest = this.times.sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST);
    const lines = slowest.map(({ file, seconds }) => `${seconds.toFixed(1).padStart(7)} s  ${file}`);
    appendFileSync(this.path, `\nseconds per test file (import and tests, in its worker), slowest first:\n${lines.join('\n')}\n`);
    this.vitest.logger.log(`Console output of every test, passed ones included: ${relative(process.cwd(), this.path)}`);
  }
}
