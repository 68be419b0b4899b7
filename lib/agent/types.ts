/**
 * Agents as the chat tool sees them: a profile (what clients may know) and a way to stream a reply.
 * Upstream adapters (openai, platform) and in-process agents all fit this one shape.
 */

import type { Ask } from './ask.js';

export type AgentKind = 'openai' | 'platform' | 'in-process';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Public facts about an agent, published as the `agent://{id}` resource. Never holds credentials. */
export interface AgentProfile {
  id: string;
  name: string;
  description: string;
  kind: AgentKind;
  paid: boolean;
}

export interface AgentTurn {
  /** The new user message. */
  message: string;
  sessionId: string;
  /** Earlier turns of this session, oldest first (only for agents whose history we keep). */
  history: ChatMessage[];
  signal: AbortSignal;
  /** W3C `traceparent`/`tracestate` for the upstream request, so the agent's spans join the caller's trace. */
  traceHeaders?: Record<string, string>;
  /**
   * Asks the user (`elicit`) or the client's model (`sample`) mid-answer, on either era (lib/agent/ask.ts). On the
   * 2026-07-28 wire an unanswered question ends this run and the agent runs again with the answer, so an agent
   * that asks should ask before it yields text, or yield the same text again.
   */
  ask: Ask;
}

export interface Agent {
  profile: AgentProfile;
  /** True when we keep the conversation (openai); false when the upstream does (platform, in-process). */
  keepsHistory: boolean;
  /** Streams the reply's text. Throws an AgentError for failures a caller should see. */
  reply(turn: AgentTurn): AsyncIterable<string>;
}

/** An agent failure worth telling the calling model about; its message holds no secrets. */
export class AgentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentError';
  }
}

/** How to write an in-process agent: a function that yields the reply's text in chunks. */
export type InProcessAgent = (turn: AgentTurn) => AsyncIterable<string>;
