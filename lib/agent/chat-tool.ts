/**
 * The `chat_with_agent` tool: one message to an agent, its reply back as text and structured content.
 * The reply streams as progress notifications when the client asked for progress; identical retries join
 * the first call; turns of one session run in order; every failure is an isError result.
 */

import type { RequestContext } from '../server/context.js';
import type { ToolDefinition, ToolResult } from '../server/registry.js';
import { sha256Hex } from '../digest.js';
import { keyOf, loadHistory, saveTurn, type SessionKey } from './conversation.js';
import { runOnce } from './once.js';
import { createProgressReporter } from './progress.js';
import { inSessionOrder } from './session-queue.js';
import { AgentError, type Agent } from './types.js';
import { INPUT_JSON_SCHEMA, OUTPUT_JSON_SCHEMA } from './chat-json-schema.js';
import type { input } from './chat-schema.js';

/** zod, the largest part of a cold start, loads with the first call rather than with tools/list. */
const loadInput = () => import('./chat-schema.js').then((schemas) => schemas.input);

const CLAIM_MARGIN_MS = 30_000;

function toolError(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

export interface ChatToolOptions {
  agents: Agent[];
  /** Longest an agent may take (AGENT_TIMEOUT_MS); bounds how long retries and queued turns wait. */
  timeoutMs: number;
}

export function chatWithAgentTool({ agents, timeoutMs }: ChatToolOptions): ToolDefinition<typeof input> {
  const byId = new Map(agents.map((a) => [a.profile.id, a]));
  const list = agents.map((a) => `${a.profile.id} (${a.profile.name}: ${a.profile.description})`).join('; ');
  return {
    name: 'chat_with_agent',
    title: 'Chat with an agent',
    description:
      `Send a message to an AI agent and get its reply. Use this to delegate a task or question to one of these agents: ${list}. ` +
      'Each reply includes a session_id; pass it back to continue the same conversation, or omit it to start fresh.',
    input: { jsonSchema: INPUT_JSON_SCHEMA, load: loadInput },
    output: { jsonSchema: OUTPUT_JSON_SCHEMA },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    async run(args, ctx) {
      const agentId = args.agent_id ?? (agents.length === 1 ? agents[0]!.profile.id : undefined);
      const agent = agentId === undefined ? undefined : byId.get(agentId);
      if (!agent) {
        const why = args.agent_id === undefined ? 'agent_id is required when the server has several agents' : `unknown agent "${args.agent_id}"`;
        return toolError(`Cannot chat: ${why}. Known agents: ${[...byId.keys()].join(', ')}.`);
      }
      const principal = ctx.principal?.subject ?? '';
      const session: SessionKey = { principal, agentId: agent.profile.id, sessionId: args.session_id ?? crypto.randomUUID() };
      const progress = createProgressReporter(ctx);
      // A conversation this call starts has a session id nobody else holds yet: no history to load and no
      // earlier turn to wait for, so it skips those store round trips.
      const isNew = args.session_id === undefined;
      const talk = () => converse(agent, session, isNew, args.message, ctx, progress);
      try {
        return await runOnce({
          store: ctx.store,
          // The message by its digest: a long message never becomes a store key, nor readable in one.
          key: keyOf('chat', principal, agent.profile.id, args.session_id ?? '', await sha256Hex(args.message)),
          claimTtlMs: timeoutMs + CLAIM_MARGIN_MS,
          signal: ctx.signal,
          succeeded: (result) => !result.isError,
          onJoin: () => progress.note('An identical call is already running; waiting for its reply.'),
        }, () => isNew ? talk() : inSessionOrder(ctx.store, keyOf('session', principal, agent.profile.id, session.sessionId), {
          signal: ctx.signal,
          maxWaitMs: timeoutMs + CLAIM_MARGIN_MS,
          onWait: (ahead) => progress.note(`Waiting for ${ahead} earlier message(s) in this session.`),
        }, talk));
      } finally {
        progress.stop();
      }
    },
  };
}

async function converse(
  agent: Agent,
  session: SessionKey,
  isNew: boolean,
  message: string,
  ctx: RequestContext,
  progress: ReturnType<typeof createProgressReporter>,
): Promise<ToolResult> {
  try {
    const history = agent.keepsHistory && !isNew ? await loadHistory(ctx.store, session) : [];
    progress.note(`Asking ${agent.profile.name}…`);
    let reply = '';
    for await (const chunk of agent.reply({ message, sessionId: session.sessionId, history, signal: ctx.signal })) {
      reply += chunk;
      progress.text(chunk);
    }
    if (ctx.signal.aborted) return toolError(`Agent ${agent.profile.id}: the call was cancelled.`);
    if (!reply.trim()) return toolError(`Agent ${agent.profile.id} returned an empty reply.`);
    progress.flush();
    if (agent.keepsHistory) await saveTurn(ctx.store, session, history, message, reply);
    const structured = { agent_id: agent.profile.id, session_id: session.sessionId, reply };
    return { content: [{ type: 'text', text: reply }], structuredContent: structured };
  } catch (error) {
    if (error instanceof AgentError) return toolError(error.message);
    console.error(`[agent-mcp] agent ${agent.profile.id} failed:`, error);
    return toolError(`Agent ${agent.profile.id} failed unexpectedly.`);
  }
}
