/**
 * The "platform" JSON chat contract: POST {agent, messages, session_id, stream: false} and read
 * `message.content | content | text`. The upstream keeps the conversation, so we send only the new turn.
 */

import { metered } from '../budget.js';
import { AgentError, type Agent, type AgentProfile, type AgentTurn } from '../types.js';
import type { FormatSettings } from './settings.js';
import { upstreamJson } from './json.js';
import { postUpstream, type UpstreamTarget } from './request.js';

export function createPlatformAgent(profile: AgentProfile, options: FormatSettings): Agent {
  return {
    profile,
    keepsHistory: false,
    // The request spends one of the request's model calls (budget.ts).
    // The platform contract says nothing of usage: each turn counts as one request of unknown usage.
    reply: (turn: AgentTurn) => metered(turn.modelCalls, profile.id, () => platformReply(profile, options, turn), turn.usage),
  };
}

async function* platformReply(profile: AgentProfile, options: FormatSettings, turn: AgentTurn): AsyncGenerator<string, void> {
  const upstream = await postUpstream(options.target, {
    // The upstream's own name for the agent; our id unless the configuration names it.
    agent: options.upstreamAgent ?? profile.id,
    messages: [{ role: 'user', content: turn.message }],
    session_id: turn.sessionId,
    stream: false,
  }, turn.signal, turn.traceHeaders);
  let text = '';
  for await (const chunk of upstream.chunks()) text += chunk;
  yield replyText(options.target, text);
}

function replyText(target: UpstreamTarget, body: string): string {
  const agentId = target.agentId;
  const json = upstreamJson(target, body) as { message?: { content?: unknown }; content?: unknown; text?: unknown } | null | undefined;
  if (json === undefined) throw new AgentError(`Agent ${agentId}: the upstream sent a malformed reply (not JSON).`, 'upstream_malformed_reply');
  const text = json?.message?.content ?? json?.content ?? json?.text;
  if (typeof text !== 'string') throw new AgentError(`Agent ${agentId}: the upstream reply has no message.content, content or text.`);
  return text;
}
