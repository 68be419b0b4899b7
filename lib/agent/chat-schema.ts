/**
 * The zod schemas of `chat_with_agent`: its argument validator, loaded with the first call, and the source of
 * the JSON Schemas it publishes (chat-json-schema.ts, which must match; test/agent/chat-schema.test.ts checks).
 */

import * as z from 'zod';

export const input = z.object({
  agent_id: z.string().min(1).optional().describe('The id of the agent to talk to (see the agent:// resources). May be omitted when the server has one agent.'),
  message: z.string().min(1).max(100_000).describe('Your message to the agent, in natural language.'),
  session_id: z.string().min(1).max(200).optional().describe('Continue an earlier conversation: pass the session_id a previous reply returned. Omit to start a new one.'),
});

export const output = z.object({
  agent_id: z.string().describe('The agent that answered.'),
  session_id: z.string().describe('Pass this back as session_id to continue the conversation.'),
  reply: z.string().describe("The agent's reply."),
  tool_calls: z.array(z.object({
    chain: z.string().describe('The agents the call was made in, outermost first, e.g. "research → writer".'),
    name: z.string().describe('The tool called, e.g. "docs.search" or "agent:writer".'),
    arguments: z.string().describe('Its arguments as JSON, shortened.'),
    ok: z.boolean().describe('False when the tool failed or was refused; the agent read why.'),
    limit: z.string().optional().describe('The variable of the bound that refused the call, when one did (e.g. AGENT_MAX_TOOL_CALLS_TOTAL, RATE_LIMIT_PRINCIPAL).'),
  })).optional().describe('The tool calls made for this reply, in order (agents that use tools only).'),
});
