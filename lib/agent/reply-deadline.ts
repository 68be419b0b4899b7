/**
 * `chat_with_agent` for a slow agent and a client that does not follow tasks (docs/agents.md "Slow agents"): the
 * tool's side of lib/tasks/on-behalf.ts. A call still running at AGENT_REPLY_DEADLINE_MS answers with the reply so far
 * and a sentence a model follows by itself: call again with the same session_id and no message. Its run goes on as a
 * task the server started for the caller, filed under the conversation (caller.ts pendingReply), so the collecting call
 * may land on any instance and needs nothing but the session_id it already holds; programs get the run's handle too.
 *
 * A paid call's run shows none of its reply before its end (context.ts withReplyHeld): the answer at the deadline and the
 * collections before the end say so, and the end, once the run's payment is settled, brings the whole reply.
 *
 * What collects (and costs nothing more with x402: the payment paid for the run, and a collection starts none):
 * - no message, with session_id: the conversation's latest run that outlived its call;
 * - no message, with handle: that run (a handle is bound to the caller that started it);
 * - `cancel: true` with either: stops it, and answers so (not an error); a run already ended answers as it ended.
 * A new message while a run of its conversation goes on waits for it (the conversation's turns run in order, never two
 * at once), then runs.
 */

import { storeKeys } from '../server/caller.js';
import type { RequestContext } from '../server/context.js';
import type { ToolResult } from '../server/registry.js';
import type { Collection, ReplyDeadline, RunView } from '../tasks/tool-task.js';
import { createSlots } from '../limits/slots.js';
import type { input } from './chat-schema.js';
import type { ReplyDeadlineSettings } from './config.js';
import { openConversation } from './conversation.js';
import { releaseLater } from './late-release.js';
import { turnKeysOf } from './turn.js';
import type { Agent } from './types.js';
import type * as z from 'zod';

type Args = z.output<typeof input>;

/** What the conversation's key holds: the run a collecting call waits for, by its task (record.ts). */
interface PendingReply {
  handle: string;
  owner: string;
}

function toolError(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** `runMs`: the longest a run may go on (its turn's bound), which the conversation's pointer to it must outlive. */
export function chatDeadline(settings: ReplyDeadlineSettings, agents: ReadonlyMap<string, Agent>, runMs: number): ReplyDeadline<Args> {
  const { ms, ttlMs } = settings;
  const seconds = Math.ceil(ms / 1000);
  const onlyAgent = agents.size === 1 ? [...agents.keys()][0] : undefined;

  /** The sentence a model acts on: how to come back for the rest, and how to stop it. */
  const comeBack = (run: RunView) => {
    const { agent_id, session_id } = run.facts;
    const again = session_id === undefined ? { handle: run.handle } : { ...(agent_id !== undefined && agent_id !== onlyAgent ? { agent_id } : {}), session_id };
    const status = run.note ? `; latest step: ${run.note}` : '';
    const more = run.withheld ? 'this note again' : 'more of it with this note again';
    return `[The agent is still working on this reply (${Math.round(run.elapsedMs / 1000)} s so far${status}) and goes on in the background. ` +
      `To get ${run.withheld ? 'it' : 'the rest'}, call chat_with_agent again with ${JSON.stringify(again)} and no message: that call waits up to ${seconds} s and ` +
      `returns the whole reply, or ${more}. To stop the agent instead, make that call with "cancel": true.]`;
  };

  /** What a call without a message (or with `cancel`) collects. */
  async function collection(args: Args, ctx: RequestContext): Promise<Collection> {
    const cancel = args.cancel === true;
    if (args.handle !== undefined) return { handle: args.handle, cancel };
    if (args.session_id === undefined) {
      return { refused: toolError('Invalid arguments: message is required. Leave it out only to collect a reply the agent is still writing: pass that reply\'s session_id.') };
    }
    const agentId = args.agent_id ?? onlyAgent;
    if (agentId === undefined || !agents.has(agentId)) {
      return { refused: toolError(`Cannot collect: ${agentId === undefined ? 'agent_id is required when the server has several agents' : `unknown agent "${agentId}"`}. Known agents: ${[...agents.keys()].join(', ')}.`) };
    }
    const session = await openConversation(ctx, agentId, args.session_id);
    if (!session) {
      return { refused: toolError(`Invalid arguments: session_id is not a conversation this server started for you with agent "${agentId}".`) };
    }
    const pending = await ctx.store.get<PendingReply>(storeKeys.pendingReply(session.owner, session.agentId, session.id));
    return pending ? { ...pending, cancel } : { refused: nothingPending(ttlMs) };
  }

  return {
    ms,
    ttlMs,
    runs: createSlots(settings.maxRuns),

    collects(args: Args, ctx: RequestContext): Promise<Collection> | undefined {
      return args.message !== undefined && args.cancel !== true ? undefined : collection(args, ctx);
    },

    async started(run, ctx) {
      const { agent_id, session_id, starts } = run.facts;
      // A run that reached the deadline before it named its conversation is found by its handle only.
      if (agent_id === undefined || session_id === undefined) return undefined;
      const owner = ctx.caller.conversationOwner;
      const pending: PendingReply = { handle: run.handle, owner: run.owner };
      const filed = ctx.store.set(storeKeys.pendingReply(owner, agent_id, session_id), pending, runMs + ttlMs);
      if (starts === undefined) return void (await filed);
      // A conversation's first turn takes no place in its queue (turn.ts): its id was nobody else's. This answer gives
      // the id out while the turn goes on, so the turn takes the queue's first ticket now, before the answer, and a
      // message sent meanwhile waits for it, as for any turn; the ticket ends when the run does.
      const turn = turnKeysOf(storeKeys.turns(owner, agent_id, session_id));
      const [, { ticket = 1 }] = await Promise.all([filed, ctx.store.enter({ turn: { ...turn, turnMs: runMs } })]);
      const release = { turn: { ...turn, ticket } };
      const takenAt = Date.now();
      return () => ctx.store.leave(release).catch(() => releaseLater(ctx.store, release, takenAt + runMs));
    },

    answer(run, _ctx, stopped) {
      if (!run) return nothingPending(ttlMs);
      // A cancel that stopped the run did what it was asked: no error (a CLI reads one as a failure), no reply text
      // (x402: the run's text leaves only with its paid end).
      if (stopped && run.status === 'cancelled') {
        const { agent_id = '', session_id = '' } = run.facts;
        return { content: [{ type: 'text', text: CANCELLED }], structuredContent: { agent_id, session_id, reply: '' } };
      }
      switch (run.status) {
        case 'completed':
          // What the call would have answered, x402 receipt included: the whole reply.
          return run.result as unknown as ToolResult;
        case 'failed':
          return toolError(run.error?.message ?? 'The agent\'s run failed.');
        case 'cancelled':
          return toolError('The agent was stopped before it finished this reply (cancelled); send the message again to start over.');
        default: {
          const { agent_id = '', session_id = '' } = run.facts;
          const soFar = run.withheld ? WITHHELD : run.text || '(No reply text yet.)';
          return {
            content: [{ type: 'text', text: `${soFar}\n\n${comeBack(run)}` }],
            structuredContent: { agent_id, session_id, reply: run.text, pending: true, handle: run.handle },
          };
        }
      }
    },
  };
}

/** What a paid run shows before its end (context.ts withReplyHeld): none of its reply, which comes whole once paid. */
const WITHHELD = '(The reply is paid for: it comes whole, with the payment\'s receipt, once the agent has finished and the payment is settled. Nothing of it is shown before.)';
const CANCELLED = 'Cancelled: the agent was stopped before it finished this reply, as asked. Send the message again to start over.';

function nothingPending(ttlMs: number): ToolResult {
  return toolError('No reply is being written or kept for you under that session_id or handle: none outlived its call, it was kept ' +
    `no longer than AGENT_BACKGROUND_TTL_MS (${ttlMs} ms), or it is another caller's. Send a message to go on with the conversation.`);
}
