/**
 * Agents as the chat tool sees them: a profile (what clients may know) and a way to stream a reply.
 * Upstream adapters (openai, platform) and in-process agents all fit this one shape.
 */

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
  /** The tools this agent may use, as the caller (toolbox.ts); absent when its configuration names none. */
  tools?: AgentTools;
}

/** A tool as an agent is offered it: its MCP name (`docs.search`, `agent:research`) and published schema. */
export interface OfferedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** What a tool call gave back, as text for the model; `ok` is false for every kind of failure. */
export interface ToolOutcome {
  text: string;
  ok: boolean;
}

/**
 * The team's tools as one agent turn may use them: only those its configuration names, only those the caller
 * could call itself, never a paid one. Failures are outcomes (`ok: false`), never exceptions; only the
 * caller's cancellation ends a call early.
 */
export interface AgentTools {
  list(): Promise<OfferedTool[]>;
  call(name: string, args: unknown): Promise<ToolOutcome>;
  /** Reports work the caller should see (a step, a refusal) as a progress note. */
  note(message: string): void;
}

export interface Agent {
  profile: AgentProfile;
  /** True when we keep the conversation (openai); false when the upstream does (platform, in-process). */
  keepsHistory: boolean;
  /** Tool patterns from the configuration (`github.*`, `notes.add`, `agent:research`); absent: no tools. */
  tools?: string[];
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
