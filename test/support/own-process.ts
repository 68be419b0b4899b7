/**
 * Test support: runs an ES module script (TypeScript, through tsx) in a fresh Node process, for what a test process
 * cannot give it: NODE_EXTRA_CA_CERTS, which Node reads at start-up, or garbage collections of its own. Its
 * environment is PATH and `env` alone; resolves with the last line it printed, parsed as JSON. `node`: another Node
 * binary than this one (a pinned Node 24, scripts/npm-cache.mjs).
 */

import { spawn } from 'node:child_process';
import { stderrToConsole } from './child-stderr.js';

export async function inOwnProcess<T>(
  script: string, env: Record<string, string>, { nodeFlags = [], node = process.execPath }: { nodeFlags?: string[]; node?: string } = {},
): Promise<T> {
  const child = spawn(node, [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  stderrToConsole(child);
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  await new Promise((resolve) => child.on('exit', resolve));
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}
