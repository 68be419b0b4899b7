/**
 * Conversation history for agents whose upstream is stateless (openai, in-process): kept in the store,
 * namespaced by owner + agent + conversation, bounded in length, expiring when idle. Calls to one session are
 * serialized (session-queue.ts), so a read-modify-write per turn is safe.
 */

import { storeKeys } from '../server/caller.js';
import type { Store } from '../store/types.js';
import type { ChatMessage } from './types.js';

/** The most recent messages kept per session (user and assistant turns). */
export const MAX_HISTORY_MESSAGES = 40;
export const HISTORY_TTL_MS = 24 * 60 * 60_000;

/** One conversation: its owner (lib/server/caller.ts), agent, the id the client holds and the id the upstream sees. */
export interface Conversation {
  owner: string;
  agentId: string;
  id: string;
  upstreamId: string;
}

const historyKey = (c: Conversation) => storeKeys.conversation(c.owner, c.agentId, c.id);

export async function loadHistory(store: Store, session: Conversation): Promise<ChatMessage[]> {
  return (await store.get<ChatMessage[]>(historyKey(session))) ?? [];
}

export async function saveTurn(store: Store, session: Conversation, history: ChatMessage[], user: string, reply: string): Promise<void> {
  const next = [...history, { role: 'user', content: user }, { role: 'assistant', content: reply }] as ChatMessage[];
  await store.set(historyKey(session), next.slice(-MAX_HISTORY_MESSAGES), HISTORY_TTL_MS);
}
