/**
 * The `chat_with_agent` tool: one message to an agent, its reply back as text and structured content.
 * The reply streams as progress notifications when the client asked for progress; identical retries join
 * the first call; turns of one session run in order; every failure is an isError result.
 * Per-caller state is keyed as lib/server/caller.ts says: conversations by owner, retries by caller.
 */

import { REFUSAL, type RequestContext, type TokenSpend, type ToolLimitRefusal } from '../server/context.js';
import { RETRY_AFTER_META } from '../protocol/errors.js';
import { inputRequired, type InputRequired, type ToolDefinition, type ToolResult } from '../server/registry.js';
import { sha256Hex } from '../digest.js';
import { canonicalJson } from '../server/request-state.js';
import { storeKeys } from '../server/caller.js';
import { logStoreFailure, StoreFullError, StoreUnavailableError } from '../store/types.js';
import { historyKey, historyOf, openConversation, turnRoom, turnWrite, upstreamStateKey, upstreamStateWrite, type Conversation } from './conversation.js';
import { createAsk, InputNeeded, readAskState, type AskState } from './ask-client.js';
import { progressOf, type ProgressReporter } from './progress.js';
import { ask, type Tooling } from './ask.js';
import { RequestBudget, type BudgetLimits } from './budget.js';
import type { ToolCallRecord } from './toolbox.js';
import { runTurn, type Ran, type TurnOptions } from './turn.js';
import { AgentError, callCancelled, type Agent, type Ask, type ChatMessage } from './types.js';
import { INPUT_JSON_SCHEMA, OUTPUT_JSON_SCHEMA } from './chat-json-schema.js';
import { quickCheckOf } from '../server/quick-args.js';
import { DEFAULT_TASK_AFTER_MS, defaultBudget, type ReplyDeadlineSettings } from './config.js';
import { chatDeadline } from './reply-deadline.js';
import type { input } from './chat-schema.js';
import { USAGE_META, usageMeta } from '../usage/report.js';

/**
 * zod, the largest part of a cold start, loads with the first call rather than with tools/list, and only for
 * arguments the quick check cannot vouch for (lib/server/quick-args.ts): most calls never load it.
 */
const loadInput = () => import('./chat-schema.js').then((schemas) => schemas.input);
const quickInput = quickCheckOf(INPUT_JSON_SCHEMA);

const CLAIM_MARGIN_MS = 30_000;

const UPSTREAM_FAILED = { outcome: 'api_error', errorType: 'api_error' } as const;

function toolError(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** A call refused by a spent token budget: like a per-tool limit's refusal, a tool result saying when to try again. */
function overTokenBudget(refusal: ToolLimitRefusal, ctx: RequestContext): ToolResult {
  ctx.observation?.noteToolFailure?.({ outcome: 'request_error', errorType: 'rate_limited' });
  ctx.observation?.noteRefusal?.(REFUSAL.tokenBudget);
  return { ...toolError(refusal.message), _meta: { [RETRY_AFTER_META]: refusal.retryAfterSeconds } };
}

export interface ChatToolOptions {
  agents: Agent[];
  /** Longest one upstream request may take (AGENT_TIMEOUT_MS). */
  timeoutMs: number;
  /**
   * What one call may cost in all, nested agents included (budget.ts); defaultBudget(timeoutMs) when absent. Its
   * turn time also bounds how long retries and queued turns wait for a call.
   */
  budget?: BudgetLimits;
  /** How agents reach the team's tools; required when any agent names tools. */
  tooling?: Tooling;
  /**
   * AGENT_TASK_AFTER_MS: a call the agent has not answered by then becomes a task for a client that declared the
   * tasks extension (2026-07-28); a legacy client that sends `params.task` gets one at once. Default DEFAULT_TASK_AFTER_MS.
   */
  taskAfterMs?: number;
  /**
   * For a caller that did not ask for a task: a call still running after `ms` answers with the reply so far and how
   * to collect the rest, and its run goes on (reply-deadline.ts). Absent: a call runs to its end.
   */
  replyDeadline?: ReplyDeadlineSettings;
}

export function chatWithAgentTool(options: ChatToolOptions): ToolDefinition<typeof input> {
  const { agents, timeoutMs, budget = defaultBudget(timeoutMs), tooling, taskAfterMs = DEFAULT_TASK_AFTER_MS, replyDeadline } = options;
  // A call holds its claim and its conversation's turn for as long as it may run.
  const holdMs = budget.turnTimeoutMs + CLAIM_MARGIN_MS;
  const byId = new Map(agents.map((a) => [a.profile.id, a]));
  const teams = new Map(agents.map((agent) => [agent, { agent, agents: byId, tooling, budget }]));
  const list = agents.map((a) => `${a.profile.id} (${a.profile.name}: ${a.profile.description})`).join('; ');
  return {
    name: 'chat_with_agent',
    title: 'Chat with an agent',
    description:
      `Send a message to an AI agent and get its reply. Use this to delegate a task or question to one of these agents: ${list}. ` +
      'Each reply includes a session_id; pass it back to continue the same conversation, or omit it to start fresh.',
    input: { jsonSchema: INPUT_JSON_SCHEMA, load: loadInput, quick: quickInput },
    output: { jsonSchema: OUTPUT_JSON_SCHEMA },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    task: { support: 'optional', afterMs: taskAfterMs, ...(replyDeadline ? { deadline: chatDeadline(replyDeadline, byId, holdMs) } : {}) },
    async run(args, ctx) {
      const agentId = args.agent_id ?? (agents.length === 1 ? agents[0]!.profile.id : undefined);
      const agent = agentId === undefined ? undefined : byId.get(agentId);
      if (!agent) {
        const why = args.agent_id === undefined ? 'agent_id is required when the server has several agents' : `unknown agent "${args.agent_id}"`;
        return toolError(`Cannot chat: ${why}. Known agents: ${[...byId.keys()].join(', ')}.`);
      }
      // Only a call that may answer before its run ends collects one (reply-deadline.ts); here there is nothing to collect.
      const { message } = args;
      if (message === undefined) return toolError('Invalid arguments: message is required.');
      ctx.observation?.noteAgent?.(agent.profile.id);
      // The caller's token budgets are checked before anything runs; the call's usage is charged to them as it arrives.
      const tokens = await ctx.tokenBudget?.(agent.profile.id, ctx.usage);
      if (tokens && 'refused' in tokens) return overTokenBudget(tokens.refused, ctx);
      const spend = tokens?.spend;
      const progress = progressOf(ctx);
      const asked = readAskState(ctx);
      // Whether the agent was asked: a store that refuses the turn's room refuses it before (turn.ts).
      let ran = false;
      try {
        // An MRTR retry continues the conversation its first round started.
        const session = await openConversation(ctx, agent.profile.id, args.session_id ?? asked.conversation);
        if (!session) {
          return toolError(`Invalid arguments: session_id is not a conversation this server started for you with agent ` +
            `"${agent.profile.id}". Omit session_id to start a new conversation.`);
        }
        // A conversation this call starts has an id nobody else holds yet: no history to load and no earlier
        // turn to wait for, so it skips those. Only a retry joins a running or finished call: the same caller
        // sending the same request (id and arguments) again. A caller the server cannot recognise gets no
        // joining; a new request always runs.
        const isNew = args.session_id === undefined && asked.conversation === undefined;
        // What the answers given while the run goes on name (reply-deadline.ts), and whether it started the conversation.
        ctx.report?.describe({ agent_id: agent.profile.id, session_id: session.id, ...(isNew ? { starts: 'conversation' } : {}) });
        const readsHistory = agent.keepsHistory && !isNew;
        const readsState = agent.keepsUpstreamState === true && !isNew;
        const turn: TurnOptions<ToolResult | InputRequired> = {
          store: ctx.store,
          signal: ctx.cancellation,
          reserve: turnRoom(session, message, agent.keepsHistory, holdMs),
        };
        if (ctx.caller.key !== undefined) {
          turn.once = {
            key: storeKeys.retry(ctx.caller.key, ctx.requestId, await sha256Hex(canonicalJson(args))),
            claimTtlMs: holdMs,
            succeeded: (result: ToolResult | InputRequired) => !('inputRequired' in result) && !result.isError,
            onJoin: () => progress.note('This request is already running; waiting for its reply.'),
          };
        }
        if (!isNew) {
          turn.queue = {
            key: storeKeys.turns(session.owner, session.agentId, session.id),
            turnMs: holdMs,
            onWait: (ahead: number) => progress.note(`Waiting for ${ahead} earlier message(s) in this session.`),
          };
          turn.read = [...(readsHistory ? [historyKey(session)] : []), ...(readsState ? [upstreamStateKey(session)] : [])];
        }
        return await runTurn(turn, (values) => {
          ran = true;
          return converse(teams.get(agent)!, session, {
            history: historyOf(readsHistory ? values[0] : undefined),
            state: readsState ? values.at(-1) : undefined,
          }, message, ctx, progress, asked, spend);
        });
      } catch (error) {
        if (error instanceof StoreUnavailableError) {
          logStoreFailure('chat_with_agent', error);
          return toolError(storeRefusal(error, ran));
        }
        throw error;
      } finally {
        progress.stop();
        await spend?.end();
      }
    },
  };
}

/**
 * One turn with the agent; the history it read comes in, the write that saves the turn goes out. History keeps
 * the user's message and the final reply only: tool results can be large, were fetched under the caller's
 * scopes of that moment and go stale, so the model calls the tool again rather than trusting an old result.
 */
async function converse(
  team: { agent: Agent; agents: ReadonlyMap<string, Agent>; tooling?: Tooling; budget: BudgetLimits },
  session: Conversation,
  kept: { history: ChatMessage[]; state: unknown },
  message: string,
  ctx: RequestContext,
  progress: ProgressReporter,
  answers: AskState,
  tokens: TokenSpend | undefined,
): Promise<Ran<ToolResult | InputRequired>> {
  const { agent } = team;
  const { history } = kept;
  const calls: ToolCallRecord[] = [];
  // What a stateful upstream saves goes with the turn's end, even when the turn ends in a question for the caller.
  let saved: { value: unknown } | undefined;
  const upstreamState = agent.keepsUpstreamState ? { value: kept.state, save: (value: unknown) => void (saved = { value }) } : undefined;
  const stateWrites = () => (saved ? [upstreamStateWrite(session, saved.value)] : []);
  // One budget for everything this call sets off, nested agents included; its signal is the caller's and the clock's.
  const budget = new RequestBudget(team.budget, agent.profile.id, ctx.cancellation, tokens);
  const failed = (text: string) => ({ value: withUsage(toolError(calls.length ? `${text} ${describeCalls(calls)}` : text), ctx) });
  const stopped = () => failed(budget.timedOut ? budget.timeoutMessage : callCancelled(agent.profile.id).message);
  try {
    progress.note(`Asking ${agent.profile.name}…`);
    let reply = '';
    const asked = performance.now();
    try {
      let questions: Ask | undefined;
      const questionsOf = () => (questions ??= createAsk(ctx, { ...answers, conversation: session.id }, () => budget.signal));
      // The reporter is an object with methods (progress.ts): what is handed on as a function calls them on it.
      const options = { agents: team.agents, tooling: team.tooling, ctx, budget, note: (line: string) => progress.note(line), calls, ask: questionsOf };
      const turn = { message, session, history, ...(upstreamState ? { upstreamState } : {}) };
      reply = await budget.within(ask(agent, turn, [agent.profile.id], options, (chunk: string) => progress.text(chunk)));
    } finally {
      ctx.observation?.noteUpstream(performance.now() - asked);
    }
    if (budget.cancelled) return stopped();
    if (!reply.trim()) return failed(`Agent ${agent.profile.id} returned an empty reply.`);
    progress.flush();
    const structured = { agent_id: agent.profile.id, session_id: session.id, reply, ...(agent.tools ? { tool_calls: calls } : {}) };
    return {
      value: withUsage({ content: [{ type: 'text', text: reply }], structuredContent: structured }, ctx),
      writes: agent.keepsHistory ? [turnWrite(session, history, message, reply), ...stateWrites()] : stateWrites(),
    };
  } catch (error) {
    // No history is saved (the retry with the answer runs the turn again), only what a stateful upstream kept.
    if (error instanceof InputNeeded) {
      return { value: inputRequired({ [error.key]: { method: error.method, params: error.params } }, error.state), writes: stateWrites() };
    }
    if (budget.cancelled) return stopped();
    if (error instanceof AgentError) {
      // The agent, an upstream this tool calls, failed the turn: the call's span says api_error, the log line why.
      ctx.observation?.noteToolFailure?.(UPSTREAM_FAILED);
      ctx.observation?.noteCause?.(error.code ?? 'agent_error');
      // A turn a token budget stopped says when to try again, as the refusal before a call does (overTokenBudget).
      const retryAfterSeconds = tokens?.stopped?.retryAfterSeconds;
      const result = failed(error.message);
      return retryAfterSeconds === undefined ? result : { value: { ...result.value, _meta: { ...result.value._meta, [RETRY_AFTER_META]: retryAfterSeconds } } };
    }
    console.error(`[agent-mcp] agent ${agent.profile.id} failed:`, error);
    return failed(`Agent ${agent.profile.id} failed unexpectedly.`);
  } finally {
    budget.close();
  }
}

/** `result` with what the call's agents spent so far in its `_meta` (rule 17), a failed turn's too: it was spent. */
function withUsage(result: ToolResult, ctx: RequestContext): ToolResult {
  const usage = usageMeta(ctx.usage.total);
  return usage ? { ...result, _meta: { ...result._meta, [USAGE_META]: usage } } : result;
}

/** What the caller is told when the store failed the turn: before the agent was asked (`ran` false), or after. */
function storeRefusal(error: StoreUnavailableError, ran: boolean): string {
  if (!(error instanceof StoreFullError)) return 'The shared store is unavailable, so the conversation cannot be read or saved; try again shortly.';
  if (!ran) {
    return error.tooLarge
      ? 'This conversation has grown larger than the server keeps for one caller; the agent was not asked. Start a new conversation (omit session_id).'
      : 'The server has no room to keep this conversation right now; the agent was not asked. Try again later.';
  }
  return error.tooLarge
    ? 'This conversation has grown larger than the server keeps for one caller, so this turn was not saved; start a new conversation (omit session_id).'
    : 'The server has no room to keep this conversation right now, so it was not saved; try again later.';
}

/** The calls a failed turn made, for the caller: "Tool calls made: research: docs.search (ok), …". */
function describeCalls(calls: ToolCallRecord[]): string {
  return `Tool calls made: ${calls.map((c) => `${c.chain}: ${c.name} (${c.ok ? 'ok' : 'error'})`).join(', ')}.`;
}
