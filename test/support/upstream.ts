/** Test support: starts the test-only upstream agent (upstream-server.ts) as its own process. */

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { stderrToConsole } from './child-stderr.js';

const SCRIPT = fileURLToPath(new URL('./upstream-server.ts', import.meta.url));

export interface UpstreamLogEntry {
  at: number;
  kind: 'request' | 'closed';
  path: string;
  authorization?: string;
  traceparent?: string;
  body?: {
    messages?: Array<{ role: string; content: string; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string;
      /** An AI SDK UI message's (an ai-sdk agent's request). */
      parts?: Array<{ type: string; text?: string }> }>;
    tools?: Array<{ type: string; function: { name: string; description: string; parameters: Record<string, unknown> } }>;
    session_id?: string;
    agent?: string;
    model?: string;
  };
  /** The client's port: requests with the same port came over one connection. */
  port?: number;
  /** On `closed`: bytes of body the upstream had written when the client went away (its hostile streams count). */
  written?: number;
  /** Requests in progress at the upstream when this one arrived, itself included. */
  inFlight?: number;
}

export interface Upstream {
  url: string;
  log(): Promise<UpstreamLogEntry[]>;
  /** Requests whose last user message is `message`. */
  requestsFor(message: string): Promise<UpstreamLogEntry[]>;
  /** True once the request whose last user message is `message` was closed by the client before its reply ended. */
  closedFor(message: string): Promise<boolean>;
  /** Polls the log until `predicate` holds, for at most `timeoutMs` (default 5 s), so a test fails rather than hangs. */
  waitFor(predicate: (log: UpstreamLogEntry[]) => boolean, timeoutMs?: number): Promise<UpstreamLogEntry[]>;
  stop(): void;
}

export async function startUpstream(): Promise<Upstream> {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
  stderrToConsole(child);
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      const match = /listening on (http:\/\/\S+)/.exec(String(chunk));
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`upstream exited with ${code}`)));
  });
  const log = async () => (await (await fetch(`${url}/__log`)).json()) as UpstreamLogEntry[];
  const lastUser = (e: UpstreamLogEntry) => [...(e.body?.messages ?? [])].reverse().find((m) => m.role === 'user')?.content;
  return {
    url,
    log,
    requestsFor: async (message) => (await log()).filter((e) => e.kind === 'request' && lastUser(e) === message),
    closedFor: async (message) => (await log()).some((e) => e.kind === 'closed' && lastUser(e) === message),
    async waitFor(predicate, timeoutMs = 5_000) {
      for (const end = Date.now() + timeoutMs; Date.now() < end;) {
        const entries = await log();
        if (predicate(entries)) return entries;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the upstream never reached the expected state');
    },
    stop: () => child.kill(),
  };
}

/**
 * An upstream error text holding the caller's key, and secrets no block-list finds: the key split in two,
 * `Bearer <key>` in base64, a host without a scheme, a private address, a password. `secrets` are the strings a
 * caller must never see.
 */
export function secretsText(key: string): { text: string; secrets: string[] } {
  const half = Math.floor(key.length / 2);
  const secrets = [key.slice(0, half), key.slice(half), Buffer.from(`Bearer ${key}`).toString('base64'), 'db.internal.corp:5432', '10.0.0.5', 'password=hunter2'];
  const [head, tail, encoded, host, address, password] = secrets;
  return { text: `db ${host} at ${address} refused ${password} for key ${key} (${head} ${tail}, sent as ${encoded})`, secrets };
}
