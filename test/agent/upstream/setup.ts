/** Test support shared by the format tests: a caller with its progress, and waiting for a condition a test cannot await. */

import type { Client } from '@modelcontextprotocol/client';
import { textOf } from '../setup.js';

export interface Chat {
  result: Awaited<ReturnType<Client['callTool']>>;
  text: string;
  progress: string[];
  sessionId?: string;
}

/** One chat_with_agent call with a progress token; its text, its progress messages and the session it gave. */
export async function chat(client: Client, agentId: string, message: string, sessionId?: string, signal?: AbortSignal): Promise<Chat> {
  const progress: string[] = [];
  const result = await client.callTool(
    { name: 'chat_with_agent', arguments: { agent_id: agentId, message, ...(sessionId ? { session_id: sessionId } : {}) } },
    { onprogress: (p) => void progress.push(p.message ?? ''), ...(signal ? { signal } : {}) },
  );
  return { result, text: textOf(result), progress, sessionId: (result.structuredContent as { session_id?: string } | undefined)?.session_id };
}

/** Polls `check` until it holds (at most ~5 s, so a test fails rather than hangs). */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 250; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the condition never held');
}

/** True when a progress message is `note`, or is `note` with a count of others (notes within 100 ms come as one). */
export const noted = (progress: string[], note: string) => progress.some((line) => line === note || line.startsWith(`${note} (and `));
