/**
 * Conversation history for agents whose upstream is stateless (openai, in-process): kept in the store,
 * namespaced by principal + agent + session, bounded in length, expiring when idle. Calls to one session are
 * serialized (session-queue.ts), so a read-modify-write per turn is safe.
 */

import type { Store } from '../store/types.js';
import type { ChatMessage } from './types.js';

/** The most recent messages kept per session (user and assistant turns). */
export const MAX_HISTORY_MESSAGES = 40;
export const HISTORY_TTL_MS = 24 * 60 * 60_000;

export interface SessionKey {
  principal: string;
  agentId: string;
  sessionId: string;
}

/** A store key from parts that may contain any character. */
export function keyOf(prefix: string, ...parts: string[]): string {
  return `${prefix}:${parts.map(encodeURIComponent).join(':')}`;
}

const historyKey = (s: SessionKey) => keyOf('conv', s.principal, s.agentId, s.sessionId);

export async function loadHistory(store: Store, session: SessionKey): Promise<ChatMessage[]> {
  return (await store.get<ChatMessage[]>(historyKey(session))) ?? [];
}

export async function saveTurn(store: Store, session: SessionKey, history: ChatMessage[], user: string, reply: string): Promise<void> {
  const next = [...history, { role: 'user', content: user }, { role: 'assistant', content: reply }] as ChatMessage[];
  await store.set(historyKey(session), next.slice(-MAX_HISTORY_MESSAGES), HISTORY_TTL_MS);
}
