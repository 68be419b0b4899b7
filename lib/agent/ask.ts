/**
 * One agent turn, with the tools its configuration names (toolbox.ts): the toolbox is opened for the turn as the
 * caller and closed after it. An `agent:<id>` tool runs here too, one level deeper in the same call: same caller,
 * same budget (budget.ts) and cancellation, a fresh conversation, its calls recorded in the same list with their
 * chain. Each nested turn is charged to the caller's rate limits like a request of its own.
 */

import type { RequestContext } from '../server/context.js';
import type { ToolLimits } from './config.js';
import { BudgetSpent, type RequestBudget } from './budget.js';
import { createToolbox, type ToolCallRecord, type ToolboxOptions } from './toolbox.js';
import { InputNeeded } from './ask-client.js';
import { AgentError, type Agent, type AgentTools, type AgentTurn, type Ask, type ChatMessage, type ToolOutcome, type UpstreamState } from './types.js';
import { createCountedWarning } from '../warn.js';
import { JoinedText } from '../joined-text.js';
import { isPushed } from './push.js';
import type { ModelRequestUsage, UsageReport } from '../usage/meter.js';

export interface Tooling {
  connect: ToolboxOptions['connect'];
  limits: ToolLimits;
  /** How long one tool call may go without progress (AGENT_TIMEOUT_MS). */
  timeoutMs: number;
}

export interface AskOptions {
  agents: ReadonlyMap<string, Agent>;
  /** Absent when the app gives agents no in-process client (then no agent may name tools; index.ts checks). */
  tooling?: Tooling;
  ctx: RequestContext;
  /** What the whole call may still spend; its signal is the turn's (the caller's cancellation and the turn's clock). */
  budget: RequestBudget;
  /** The caller's questions channel (ask-client.ts), shared by every agent of the turn; made when an agent first asks. */
  ask(): Ask;
  note(message: string): void;
  /** Where the calls of this turn and of every agent it asks are recorded. */
  calls: ToolCallRecord[];
}

export interface Turn {
  message: string;
  /** The conversation as the upstream knows it; its id is made when read (conversation.ts). */
  session: { readonly upstreamId: string };
  history: ChatMessage[];
  upstreamState?: UpstreamState;
}

/**
 * The turn as the agent gets it. A class, so that the session id (a MAC) and the signal (an AbortSignal) are made
 * only for an agent that reads them (a platform upstream, a fetch): getters written into an object literal made per
 * call cost V8 a new hidden class each time, which doubled the bytes a chat call left to the old generation
 * (docs/performance.md). Like any turn it is read, not copied: a spread copy has no sessionId or signal.
 */
class AgentTurnOf implements AgentTurn {
  readonly message: string;
  readonly history: ChatMessage[];
  readonly upstreamState: UpstreamState | undefined;
  readonly traceHeaders: Record<string, string> | undefined;
  readonly modelCalls: RequestBudget;
  readonly usage: UsageReport;
  readonly note: (message: string) => void;
  readonly tools: AgentTools | undefined;
  readonly #session: Turn['session'];
  readonly #ask: () => Ask;

  constructor(turn: Turn, options: AskOptions, tools: AgentTools | undefined, usage: UsageReport) {
    this.message = turn.message;
    this.history = turn.history;
    this.upstreamState = turn.upstreamState;
    this.traceHeaders = options.ctx.observation?.traceHeaders;
    this.#ask = options.ask;
    this.modelCalls = options.budget;
    this.usage = usage;
    this.note = options.note;
    this.tools = tools;
    this.#session = turn.session;
  }

  get sessionId(): string {
    return this.#session.upstreamId;
  }

  get signal(): AbortSignal {
    return this.modelCalls.signal;
  }

  get ask(): Ask {
    return this.#ask();
  }
}

/**
 * Runs `agent` on `turn` within `chain` (the agents above it, itself last); `onText` receives the reply as it
 * streams. Throws AgentError for failures a caller should see.
 */
export async function ask(agent: Agent, turn: Turn, chain: readonly string[], options: AskOptions, onText?: (chunk: string) => void): Promise<string> {
  const { ctx, tooling, budget } = options;
  const toolbox = agent.tools && tooling ? createToolbox({
    patterns: agent.tools,
    principal: ctx.principal,
    limitTool: ctx.limitTool,
    connect: tooling.connect,
    agents: new Map([...options.agents].map(([id, a]) => [id, a.profile])),
    askAgent: (id, message) => askAgent(id, message, [...chain, id], options),
    chain,
    limits: tooling.limits,
    timeoutMs: tooling.timeoutMs,
    budget,
    signal: budget.signal,
    note: options.note,
    record: (call) => void options.calls.push(call),
  }) : undefined;
  // An upstream format reports each request it makes (budget.ts metered); an in-process agent reports its own, if any.
  const own = agent.profile.kind === 'in-process' ? new OwnReports(ctx.usage) : undefined;
  // Joined flat as it grows: `+=` alone keeps a rope node per chunk for the whole turn (lib/joined-text.ts).
  const reply = new JoinedText();
  try {
    const stream = agent.reply(new AgentTurnOf(turn, options, toolbox, own ?? ctx.usage));
    // A pushed reply (push.ts) hands each chunk to this sink from the upstream's data handler: no promise per chunk.
    if (isPushed(stream)) await stream.pushTo(onText ? (chunk) => { reply.add(chunk); onText(chunk); } : (chunk) => reply.add(chunk));
    else {
      for await (const chunk of stream) {
        reply.add(chunk);
        onText?.(chunk);
      }
    }
  } finally {
    // A turn that said nothing of its usage spent an unknown amount, never none (rule 17).
    if (own && !own.reported) ctx.usage.record(undefined);
    await toolbox?.close();
  }
  return reply.text;
}

/** An in-process agent's reports, passed on to the call's meter; whether it made any. */
class OwnReports implements UsageReport {
  reported = false;
  constructor(readonly meter: UsageReport) {}

  record(usage: ModelRequestUsage | undefined): void {
    this.reported = true;
    this.meter.record(usage);
  }
}

const overLimit = createCountedWarning((detail, count) => `refused ${count} nested agent turn(s) over the caller's rate limit (latest: ${detail})`);

/** `agent:<id>` as a tool: the agent's reply, or why there is none, for the model that asked. */
async function askAgent(id: string, message: string, chain: readonly string[], options: AskOptions): Promise<ToolOutcome> {
  const agent = options.agents.get(id)!;
  const { cancellation } = options.budget;
  // Nothing new starts once the turn is over; the turn's own end reports why.
  if (cancellation.cancelled) throw cancellation.reason;
  const refused = await options.ctx.chargeCaller?.();
  if (refused) {
    overLimit.note(`${refused.variable}, chain ${chain.join(' → ')}`);
    return { ok: false, text: `Agent ${id} was not asked: ${refused.reason}`, limit: refused.variable };
  }
  try {
    const reply = await ask(agent, { message, session: { upstreamId: crypto.randomUUID() }, history: [] }, chain, options);
    return reply.trim() ? { ok: true, text: reply } : { ok: false, text: `Agent ${id} returned an empty reply.` };
  } catch (error) {
    // A question for the caller ends the whole turn (MRTR), not just this agent's answer.
    if (cancellation.cancelled || error instanceof InputNeeded) throw error;
    if (error instanceof BudgetSpent) return { ok: false, text: error.message, limit: error.variable };
    if (error instanceof AgentError) return { ok: false, text: error.message };
    console.error(`[agent-mcp] agent ${id} failed:`, error);
    return { ok: false, text: `Agent ${id} failed unexpectedly.` };
  }
}
