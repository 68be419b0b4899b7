/** The `chat_with_agent` tool: one message to an agent, the reply back as text and structured content. */

import * as z from 'zod';
import type { ToolDefinition } from '../server/registry.js';
import { DEMO_AGENT_ID, demoAgent, type InProcessAgent } from './demo.js';

const input = z.object({
  agent_id: z.string().min(1).optional().describe('Which agent to talk to; may be omitted when only one agent is configured.'),
  message: z.string().min(1).describe('The message for the agent, in natural language.'),
  session_id: z.string().min(1).max(200).optional().describe('Continue an earlier conversation by passing the session_id it returned.'),
});

const output = z.object({
  agent_id: z.string(),
  session_id: z.string(),
  reply: z.string(),
});

export function chatWithAgentTool(agents: Record<string, InProcessAgent> = { [DEMO_AGENT_ID]: demoAgent }): ToolDefinition<typeof input> {
  const ids = Object.keys(agents);
  return {
    name: 'chat_with_agent',
    title: 'Chat with an agent',
    description:
      `Send a message to an AI agent (${ids.join(', ')}) and get its reply. Use it to delegate a task or question ` +
      'to that agent; pass the returned session_id to continue the same conversation.',
    input,
    output,
    annotations: { readOnlyHint: false, openWorldHint: true },
    async run(args, ctx) {
      const agentId = args.agent_id ?? (ids.length === 1 ? ids[0]! : undefined);
      const agent = agentId === undefined ? undefined : agents[agentId];
      if (!agent) {
        return { content: [{ type: 'text', text: `Unknown agent ${String(args.agent_id)}; known agents: ${ids.join(', ')}.` }], isError: true };
      }
      const sessionId = args.session_id ?? crypto.randomUUID();
      let reply = '';
      for await (const chunk of agent({ message: args.message, sessionId, signal: ctx.signal })) {
        reply += chunk;
        ctx.progress(reply.length, undefined, reply);
      }
      const structured = { agent_id: agentId!, session_id: sessionId, reply };
      return { content: [{ type: 'text', text: reply }], structuredContent: structured };
    },
  };
}
