/**
 * Agents as the chat tool sees them: a profile (what clients may know) and a way to stream a reply.
 * Upstream adapters (the formats of upstream/index.ts) and in-process agents all fit this one shape.
 */

import type { UsageReport } from '../usage/meter.js';
import type { Rate } from '../limits/rate.js';
import type { TokenPrices } from '../pay/price.js';
/** An upstream format's name (upstream/index.ts Format: a key of its table, not imported, as the table imports this module), or an in-process agent. */
export type AgentKind = 'in-process' | (string & {});

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

/** One turn as an agent gets it. Read its fields rather than spread it: `sessionId` and `signal` are made when read. */
export interface AgentTurn {
  /** The new user message. */
  message: string;
  sessionId: string;
  /** Earlier turns of this session, oldest first (only for agents whose history we keep). */
  history: ChatMessage[];
  /** The upstream's own handle on this conversation, for agents that keep one (`keepsUpstreamState`); absent otherwise. */
  upstreamState?: UpstreamState;
  signal: AbortSignal;
  /** W3C `traceparent`/`tracestate` for the upstream request, so the agent's spans join the caller's trace. */
  traceHeaders?: Record<string, string>;
  /**
   * Asks the user (`elicit`) or the client's model (`sample`) mid-answer, on either era (lib/agent/ask-client.ts). On the
   * 2026-07-28 wire an unanswered question ends this run and the agent runs again with the answer, so an agent
   * that asks should ask before it yields text, or yield the same text again.
   */
  ask: Ask;
  /** The tools this agent may use, as the caller (toolbox.ts); absent when its configuration names none. */
  tools?: AgentTools;
  /** Reports the upstream's own work (its tools, its status) to the caller as a progress line, not reply text. */
  note?(message: string): void;
  /**
   * The request's budget of model calls (budget.ts): an upstream adapter starts each model request through it.
   * Absent outside a chat call.
   */
  modelCalls?: ModelCalls;
  /**
   * The call's token meter (lib/usage/meter.ts): an agent reports each model request's usage here, or `undefined` when
   * its upstream said nothing. The upstream formats report through `metered` (budget.ts); an in-process agent calls
   * `turn.usage?.record({ input, output })` itself, and one that reports nothing in a turn counts as one request of
   * unknown usage (ask.ts). Absent outside a chat call.
   */
  usage?: UsageReport;
}

/**
 * What an upstream that keeps the conversation itself gave us to continue it (a Responses id, an A2A context and
 * the task waiting for input), kept per conversation like history (lib/server/caller.ts), never from a client.
 */
export interface UpstreamState {
  /** What the conversation's last turn saved; undefined on its first turn. */
  readonly value: unknown;
  /** Keeps `value` for the next turn, written with this turn's end (also when it ends asking the caller a question). */
  save(value: unknown): void;
}

/** How an upstream adapter asks the request's budget for one model request. */
export interface ModelCalls {
  /**
   * Counts one model request of `agentId` and waits until it may run; throws an AgentError once the request's
   * are spent. The function it returns is called when the reply has been read.
   */
  start(agentId: string): Promise<() => void>;
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
  /** The variable of the request's bound that refused the call (a budget, a rate limit), when one did. */
  limit?: string;
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
  /** True when we keep the conversation's messages and send them (openai, anthropic, ai-sdk, in-process); false when the upstream keeps it. */
  keepsHistory: boolean;
  /** True when the upstream keeps the conversation and we keep its handle on it (turn.upstreamState). */
  keepsUpstreamState?: boolean;
  /** Tool patterns from the configuration (`github.*`, `notes.add`, `agent:research`); absent: no tools. */
  tools?: string[];
  /** Tokens each caller may spend with this agent per window (`tokenBudget`, lib/limits/tokens.ts); absent: none of its own. */
  tokenBudget?: Rate;
  /** Its own token prices for paid calls (`priceInput`, `priceOutput`, `maxPrice` else X402_MAX_PRICE); absent: the deployment's. */
  prices?: TokenPrices;
  /** Streams the reply's text. Throws an AgentError for failures a caller should see. */
  reply(turn: AgentTurn): AsyncIterable<string>;
}

/** An agent failure worth telling the calling model about; its message holds no secrets. */
export class AgentError extends Error {
  /**
   * @param code Why, for the operator's request log (`cause`): `upstream_http_401`, `upstream_timeout`… A code,
   * never the upstream's text, which may hold anything.
   */
  constructor(message: string, readonly code?: string) {
    super(message);
    this.name = 'AgentError';
  }
}

/** What a turn (or an upstream request of it) says when its caller cancelled it. */
export function callCancelled(agentId: string): AgentError {
  return new AgentError(`Agent ${agentId}: the call was cancelled.`);
}

/** How to write an in-process agent: a function that yields the reply's text in chunks. */
export type InProcessAgent = (turn: AgentTurn) => AsyncIterable<string>;

/** A form the user fills in (2025-11-25 client/elicitation, form mode): a flat object schema of primitives. */
export interface ElicitRequest {
  message: string;
  requestedSchema: { type: 'object'; properties: Record<string, Record<string, unknown>>; required?: string[] };
}

export interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

export interface SampleRequest {
  messages: Array<{ role: 'user' | 'assistant'; content: { type: 'text'; text: string } }>;
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
}

export interface SampleAnswer {
  role: 'assistant';
  content: { type: string; text?: string };
  model: string;
  stopReason?: string;
}

/** How an agent asks. `key` names the question across MRTR rounds (default: its order in the run, q1, q2…). */
export interface Ask {
  elicit(request: ElicitRequest, key?: string): Promise<ElicitAnswer>;
  sample(request: SampleRequest, key?: string): Promise<SampleAnswer>;
}
