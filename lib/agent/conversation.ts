/**
 * A conversation: its id, a capability the server issues to its owner, and its history for agents whose upstream is
 * stateless (openai, in-process): kept in the store,
 * namespaced by owner + agent + conversation, bounded in length, expiring when idle. Calls to one conversation
 * run in turn (turn.ts), so reading it at a turn's start and writing it at its end is safe.
 */

import { storeKeys } from '../server/caller.js';
import type { RequestContext } from '../server/context.js';
import type { Keyring } from '../server/keyring.js';
import { storedBytes, type Put, type Reservation } from '../store/types.js';
import type { ChatMessage } from './types.js';

/** The most recent messages kept per session (user and assistant turns). */
export const MAX_HISTORY_MESSAGES = 40;
export const HISTORY_TTL_MS = 24 * 60 * 60_000;

/** One conversation: its owner (lib/server/caller.ts), agent, the id the client holds and the id the upstream sees. */
export interface Conversation {
  owner: string;
  agentId: string;
  id: string;
  readonly upstreamId: string;
}

/** Keyring labels: a conversation id as clients hold it, and as the upstream agent sees it. */
const CONVERSATION = 'conversation';
const UPSTREAM_CONVERSATION = 'upstream-conversation';

/**
 * The conversation a call continues or starts. Conversation ids are capabilities the server issues, bound by a MAC
 * to their owner and agent: an id another principal holds, or one a client made up, is refused. The upstream
 * sees a third id derived from all three, never the client's string.
 */
export async function openConversation(ctx: Pick<RequestContext, 'caller' | 'keyring'>, agentId: string, given: string | undefined): Promise<Conversation | undefined> {
  const { keyring } = ctx;
  const owner = ctx.caller.conversationOwner;
  const id = given ?? (await keyring.issue(CONVERSATION, owner, agentId));
  if (given !== undefined && !(await keyring.check(CONVERSATION, given, owner, agentId))) return undefined;
  return new Opened(owner, agentId, id, keyring);
}

/** A class, not a literal with a getter: see ask.ts AgentTurnOf. */
class Opened implements Conversation {
  readonly #keyring: Keyring;
  #upstreamId: string | undefined;

  constructor(readonly owner: string, readonly agentId: string, readonly id: string, keyring: Keyring) {
    this.#keyring = keyring;
  }

  /** Made when an upstream reads it: most (openai, in-process) are sent the history instead. */
  get upstreamId(): string {
    return (this.#upstreamId ??= this.#keyring.macNow(UPSTREAM_CONVERSATION, this.owner, this.agentId, this.id));
  }
}

export const historyKey = (c: Conversation) => storeKeys.conversation(c.owner, c.agentId, c.id);
export const upstreamStateKey = (c: Conversation) => storeKeys.upstreamState(c.owner, c.agentId, c.id);

/** The history as read from the store (absent: none yet). */
export const historyOf = (value: unknown): ChatMessage[] => (Array.isArray(value) ? (value as ChatMessage[]) : []);

/** The write that keeps an upstream's handle on the conversation (types.ts UpstreamState), idle as long as history. */
export function upstreamStateWrite(session: Conversation, value: unknown): Put {
  return { key: upstreamStateKey(session), value, ttlMs: HISTORY_TTL_MS };
}

/** The write that saves a turn, done with the turn's release. */
export function turnWrite(session: Conversation, history: ChatMessage[], user: string, reply: string): Put {
  const next = [...history, { role: 'user', content: user }, { role: 'assistant', content: reply }] as ChatMessage[];
  return { key: historyKey(session), value: next.length > MAX_HISTORY_MESSAGES ? next.slice(-MAX_HISTORY_MESSAGES) : next, ttlMs: HISTORY_TTL_MS };
}

/**
 * Room a turn's reply may take beyond its message (the reply, and the result kept for a retry): held before the agent
 * runs. A longer reply still makes its own room when it is written, by the same rules (docs/security.md "The store is
 * shared fairly").
 */
export const REPLY_ROOM_BYTES = 16 * 1024;
/**
 * node:crypto's randomUUID, not the global WebCrypto one: the global `crypto` loads Node's WebCrypto module on first
 * use, which cost every cold start's first chat call ~0.6 ms (docs/performance.md, issue 48). Asked for once.
 */
let randomUUID: (() => string) | undefined;

/** What a message costs in a history beyond its text: `{"role":"user","content":…}`. */
const MESSAGE_OVERHEAD_BYTES = 32;

/**
 * The room a turn holds before its agent runs (store/types.ts Reservation): its message as the history will keep it
 * and REPLY_ROOM_BYTES; a conversation whose history and message are more than one caller may hold is refused before
 * the agent is asked.
 */
export function turnRoom(session: Conversation, message: string, keepsHistory: boolean, ttlMs: number): Reservation {
  const kept = storedBytes(message) + MESSAGE_OVERHEAD_BYTES;
  return {
    key: storeKeys.room((randomUUID ??= process.getBuiltinModule('node:crypto').randomUUID)()),
    bytes: kept + REPLY_ROOM_BYTES,
    ttlMs,
    ...(keepsHistory ? { grows: { key: historyKey(session), bytes: kept } } : {}),
  };
}
