/**
 * Test support: the AI SDK route (ai-sdk-route.mjs) as its own process under Node 22, which `ai` 7 needs; both
 * Node 22 and `ai` are installed from the npm registry into .cache/ on first use (scripts/npm-cache.mjs), so
 * `npm test` provisions them on a fresh machine.
 */

import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCached, ensureNode22 } from '../../scripts/npm-cache.mjs';
import { stderrToConsole } from './child-stderr.js';

const SCRIPT = fileURLToPath(new URL('./ai-sdk-route.mjs', import.meta.url));
/** The `ai` release the route runs (pinned, like the suite's other cached tools). */
export const AI_SDK_VERSION = '7.0.173';
/** The secret the route's error part holds (its "fault:error"). */
export const ROUTE_SECRET = 'route-internal-secret http://10.9.8.7/db';

export interface RouteLogEntry {
  body: { id: string; messages: Array<{ id: string; role: string; parts: Array<{ type: string; text: string }> }>; trigger?: string; [field: string]: unknown };
  secretHeader: string | null;
  authorization: string | null;
  /** The client went away before the reply ended. */
  closed: boolean;
}

export interface AiSdkRoute {
  /** The route's URL (…/api/chat). */
  url: string;
  log(): Promise<{ requests: RouteLogEntry[]; closed: number }>;
  stop(): void;
}

/** Starts the route; `errorBody` is what it answers "fault:secrets" with (HTTP 500). */
export async function startAiSdkRoute(options: { errorBody?: string } = {}): Promise<AiSdkRoute> {
  const node = ensureNode22();
  const ai = ensureCached('ai-sdk', `ai@${AI_SDK_VERSION}`, 'node_modules/ai/package.json');
  const child = spawn(node, [SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'], env: {
    PATH: process.env.PATH, AI_SDK_DIR: dirname(dirname(ai)), ROUTE_SECRET, ROUTE_ERROR_BODY: options.errorBody ?? 'the route failed',
  } });
  stderrToConsole(child);
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      const match = /listening on (http:\/\/\S+)/.exec(String(chunk));
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`the AI SDK route exited with ${code}`)));
  });
  return {
    url: `${base}/api/chat`,
    log: async () => (await (await fetch(`${base}/__log`)).json()) as { requests: RouteLogEntry[]; closed: number },
    stop: () => void child.kill(),
  };
}
