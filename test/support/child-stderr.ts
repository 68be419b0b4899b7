/**
 * Test support: a child process's stderr, printed through the test's console instead of inherited. Inherited, it
 * went straight to the terminal between the test results, where expected warnings looked like failures; through
 * the console, vitest shows it with the test that was running when it failed, and keeps it in the output log
 * (test/support/output-log.ts) when it passed. Spawn the child with stderr 'pipe'.
 */

import type { ChildProcess } from 'node:child_process';

export function stderrToConsole(child: ChildProcess): void {
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => console.error(chunk.trimEnd()));
}
