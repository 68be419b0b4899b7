/**
 * Test support for running real MCP clients (the MCP Inspector, mcp-remote) as child processes against the
 * protected app and the test authorization server, every wait bounded: a child that does not finish in time is
 * killed and the test fails with what it printed.
 *
 * No real browser opens: the clients' "open the browser" step runs with no display and `BROWSER=true` (a
 * no-op command, honoured by xdg-open), and the test plays the browser over HTTP (browser-leg.ts).
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createMcpHandler } from '../../api/mcp.js';
import { createProtectedResourceHandler } from '../../lib/auth/metadata.js';
import { H_VERCEL_PROTECTION_BYPASS } from '../../lib/protocol/headers.js';
import { startLocalServer } from '../../scripts/local-server.js';
import { startOAuthServer } from './oauth-server.js';
import { createProtectedApp, SCOPE } from './protected-app.js';

export const BYPASS_HEADER = H_VERCEL_PROTECTION_BYPASS;

export interface ProtectedStack {
  issuer: string;
  /** The MCP endpoint, `<origin>/mcp`. */
  mcpUrl: string;
  /** Requests the protection gate turned away, as `METHOD /path`. */
  refused: string[];
  close(): Promise<void>;
}

/**
 * The test authorization server and the protected app (tools `whoami`, `admin_only`) on loopback. With
 * `bypassSecret`, every function answers like a preview behind Vercel Deployment Protection: 401 and an HTML
 * login page unless the request carries the secret in the bypass header.
 */
export async function startProtectedStack(options: { bypassSecret?: string } = {}): Promise<ProtectedStack> {
  const as = await startOAuthServer({ scopes: [SCOPE, 'admin'] });
  const env = { AUTH_ISSUER: as.issuer, AUTH_SCOPES: SCOPE };
  const refused: string[] = [];
  const gate = (handler: (request: Request) => Promise<Response>) => options.bypassSecret === undefined ? handler
    : async (request: Request) => {
      if (request.headers.get(BYPASS_HEADER) === options.bypassSecret) return handler(request);
      refused.push(`${request.method} ${new URL(request.url).pathname}`);
      return new Response('Authentication Required', { status: 401, headers: { 'content-type': 'text/html' } });
    };
  const mcp = await startLocalServer({
    port: 0,
    functions: {
      '/api/mcp': gate(createMcpHandler(createProtectedApp(env))),
      '/api/wk-oauth-protected-resource': gate(createProtectedResourceHandler(env)),
    },
  });
  return {
    issuer: as.issuer,
    mcpUrl: `${mcp.url}/mcp`,
    refused,
    close: async () => {
      await mcp.close();
      await as.close();
    },
  };
}

/** A refused `METHOD /path` that fetched our protected resource metadata, wherever the challenge points. */
export const isMetadataRequest = (refused: string) => /^GET \S*oauth-protected-resource/.test(refused);

export { freePort } from './free-port.js';

/** A scratch directory removed by the returned cleanup: a client's HOME or config directory. */
export function scratchDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(`${tmpdir()}/${prefix}-`);
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** The environment for a client child: no display, a no-op browser, the given HOME and extra variables. */
export function clientEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home, USERPROFILE: home, DISPLAY: '', WAYLAND_DISPLAY: '', BROWSER: 'true', NO_COLOR: '1', ...extra };
}

export interface RunningClient {
  child: ChildProcess;
  /** Everything the child printed to stdout and stderr so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves with the first match of `pattern` in its output; rejects if the child exits or `ms` pass first. */
  waitForOutput(pattern: RegExp, ms: number): Promise<RegExpExecArray>;
  /** Resolves with the exit code; kills the child and rejects if it runs longer than `ms`. */
  exited(ms: number): Promise<number | null>;
  kill(): void;
}

/** Spawns a client; its output is collected for the test's assertions and failure messages. */
export function startClient(command: string, args: string[], env: NodeJS.ProcessEnv): RunningClient {
  // Its own process group, so that kill() also ends what it started (the Inspector's stdio servers).
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => { stdout += chunk; });
  child.stderr!.on('data', (chunk) => { stderr += chunk; });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const killGroup = () => {
    try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* the group is gone */ }
  };
  const describe = () => `stdout: ${stdout.slice(-2000)}\nstderr: ${stderr.slice(-2000)}`;
  const bounded = <T>(work: Promise<T>, ms: number, what: string) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => { killGroup(); reject(new Error(`${what} within ${ms} ms; ${describe()}`)); }, ms);
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  };
  return {
    child,
    output: () => ({ stdout, stderr }),
    waitForOutput: (pattern, ms) => bounded(new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(stdout) ?? pattern.exec(stderr);
        if (!match) return;
        child.stdout!.off('data', check);
        child.stderr!.off('data', check);
        resolve(match);
      };
      child.stdout!.on('data', check);
      child.stderr!.on('data', check);
      check();
      void exit.then((code) => reject(new Error(`the client exited (${code}) before printing ${pattern}; ${describe()}`)));
    }), ms, `no ${pattern} from the client`),
    exited: (ms) => bounded(exit, ms, 'the client did not exit'),
    kill: killGroup,
  };
}
