/**
 * The one Inspector command the landing page, the README and docs/oauth.md give runs the current Inspector on any
 * Node: this suite runs on Node 20, below the 22.19 the Inspector needs, where a bare `npx
 * @modelcontextprotocol/inspector` quietly installs an old major instead. The command brings the npm package
 * node@22 and the Inspector's latest release; it is run here as given (with the CLI's arguments added) against
 * npm start's server, from the npm registry as a user's npx would.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startLocalServer } from '../../scripts/local-server.js';
import { startClient } from '../support/client-harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(`${ROOT}${file}`, 'utf8');
const COMMAND = /const INSPECTOR = '([^']+)';/.exec(read('public/landing.js'))?.[1] ?? '';
const INSTALL_MS = 240_000;

let server: { url: string; close(): Promise<void> };
beforeAll(async () => { server = await startLocalServer({ port: 0 }); });
afterAll(() => server?.close());

/** The command's words with `args` added, run to its end; what it printed. */
async function run(args: string[]) {
  const [npx, ...words] = COMMAND.split(' ');
  const client = startClient(npx!, [...words, ...args], { ...process.env, NO_COLOR: '1' });
  const code = await client.exited(INSTALL_MS);
  return { code, ...client.output() };
}

describe('the Inspector command', () => {
  test('is the same on the landing page, in the README and in docs/oauth.md', () => {
    expect(COMMAND).toMatch(/^npx -y .*-p node@22 .*-p @modelcontextprotocol\/inspector@latest mcp-inspector$/);
    expect(read('README.md')).toContain(COMMAND);
    expect(read('docs/oauth.md')).toContain(COMMAND);
  });

  test('runs the current Inspector (2.x or later) on this Node, and lists the tools of npm start\'s server', { timeout: 2 * INSTALL_MS }, async () => {
    const version = await run(['--version']);
    expect(version.code, version.stderr).toBe(0);
    expect(Number(version.stdout.trim().split('.')[0])).toBeGreaterThanOrEqual(2);
    const listed = await run(['--cli', `${server.url}/mcp`, '--method', 'tools/list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toContain('chat_with_agent');
  });
});
