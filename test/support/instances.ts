/**
 * Test support: several agent-mcp server processes (instance-server.ts), as a deployment with more than one
 * instance runs them. Each gets the given environment on top of a clean one (no UPSTASH_*, KV_*, RATE_LIMIT_*,
 * X402_* or AGENT_* leaks in from the machine).
 */

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./instance-server.ts', import.meta.url));
const CONFIG_PREFIXES = ['UPSTASH_', 'KV_', 'RATE_LIMIT_', 'X402_', 'AGENT', 'AUTH_', 'MCP_', 'PUBLIC_URL', 'VERCEL'];

export interface Instances {
  /** Each process's MCP endpoint, in start order. */
  urls: string[];
  /** What the processes printed (start-up logs), for assertions on them. */
  output(): string;
  /** Kills one process at once (SIGKILL), as a crashed or frozen instance stops: no clean-up runs. */
  kill(index: number): Promise<void>;
  stop(): Promise<void>;
}

function startOne(env: Record<string, string>, log: string[]): Promise<{ url: string; child: ChildProcess }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !CONFIG_PREFIXES.some((p) => name.startsWith(p))));
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], {
    env: { ...base, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    const onOutput = (chunk: Buffer) => {
      log.push(String(chunk));
      const match = /listening on (http:\/\/\S+)/.exec(String(chunk));
      if (match) resolve({ url: match[1]!, child });
    };
    child.stdout!.on('data', onOutput);
    child.stderr!.on('data', onOutput);
    child.once('exit', (code) => reject(new Error(`instance exited with ${code}: ${log.join('')}`)));
  });
}

function stopOne(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export async function startInstances(count: number, env: Record<string, string>): Promise<Instances> {
  const log: string[] = [];
  const started = await Promise.allSettled(Array.from({ length: count }, () => startOne(env, log)));
  const running = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await Promise.all(running.map((r) => stopOne(r.child)));
    throw failed.reason;
  }
  return {
    urls: running.map((r) => r.url),
    output: () => log.join(''),
    kill: (index) => stopOne(running[index]!.child, 'SIGKILL'),
    stop: async () => {
      await Promise.all(running.map((r) => stopOne(r.child)));
    },
  };
}
