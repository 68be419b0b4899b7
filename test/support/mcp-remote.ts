/**
 * Test support: mcp-remote (npm `mcp-remote`, a devDependency), the stdio-to-HTTP bridge of stdio-only clients,
 * driven as a desktop app drives it: an SDK stdio client connects through it, and when it asks for a sign-in the
 * browser's part is played (browser-leg.ts) and the code delivered to its callback listener.
 */

import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { followToRedirect } from './browser-leg.js';
import { clientEnv, freePort } from './client-harness.js';

export const PROXY = createRequire(import.meta.url).resolve('mcp-remote/dist/proxy.js');
export const RUN_MS = 60_000;

/** The first match of `pattern` in what `stream` prints, within `ms`. */
function waitForText(stream: NodeJS.EventEmitter, pattern: RegExp, ms: number, seen: { text: string }) {
  return new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} from mcp-remote within ${ms} ms: ${seen.text.slice(-2000)}`)), ms);
    const check = () => {
      const match = pattern.exec(seen.text);
      if (match) { clearTimeout(timer); stream.off('data', check); resolve(match); }
    };
    stream.on('data', check);
  });
}

/** Connects an SDK stdio client through mcp-remote, playing the browser when it asks; returns the client. */
export async function connectThroughMcpRemote(mcpUrl: string, extraArgs: string[], configDir: string) {
  const port = await freePort();
  const redirect = `http://localhost:${port}/oauth/callback`;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PROXY, mcpUrl, String(port), ...extraArgs],
    env: clientEnv(configDir, { MCP_REMOTE_CONFIG_DIR: configDir }) as Record<string, string>,
    stderr: 'pipe',
  });
  const seen = { text: '' };
  transport.stderr!.on('data', (chunk) => { seen.text += chunk; });
  // mcp-remote prints the URL before its callback listener is up; a person is slower than this script, so the
  // code is delivered once mcp-remote says it is waiting for it.
  const listening = waitForText(transport.stderr!, /Waiting for authorization/, RUN_MS, seen);
  const asked = waitForText(transport.stderr!, /authorize this client by visiting:\s+(\S+)/, RUN_MS, seen).then(async ([, url]) => {
    const authorizationUrl = new URL(url!);
    const callback = await followToRedirect(authorizationUrl, redirect);
    await listening;
    return { authorizationUrl, landed: await fetch(callback) };
  });
  asked.catch(() => {}); // awaited below; a failure here also fails the connect
  const client = new Client({ name: 'desktop-app', version: '1.0.0' });
  // mcp-remote waiting for a sign-in outlives a closed stdin, so the child is also killed by its pid.
  const close = async () => {
    const pid = transport.pid;
    await client.close();
    if (pid !== null) try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
  };
  try {
    await client.connect(transport, { timeout: RUN_MS });
  } catch (error) {
    await close();
    throw new Error(`mcp-remote did not connect: ${String(error)}\n${seen.text.slice(-2000)}`);
  }
  return { client, close, ...(await asked), log: () => seen.text };
}
