/**
 * The zod schemas of `chat_with_agent`: its argument validator, loaded with the first call, and the source of
 * the JSON Schemas it publishes (chat-json-schema.ts, which must match; test/agent/chat-schema.test.ts checks).
 */

import * as z from 'zod';

export const input = z.object({
  agent_id: z.string().min(1).optional().describe('The id of the agent to talk to (see the agent:// resources). May be omitted when the server has one agent.'),
  message: z.string().min(1).max(100_000).optional().describe('Your message to the agent, in natural language. Leave it out only to collect a reply the agent is still writing (with its session_id).'),
  session_id: z.string().min(1).max(200).optional().describe('Continue an earlier conversation: pass the session_id a previous reply returned. Omit to start a new one.'),
  handle: z.string().min(1).max(200).optional().describe('Collect a reply the agent is still writing by the handle its earlier answer gave (the session_id alone does the same).'),
  cancel: z.boolean().optional().describe('With session_id or handle and no message: stop the reply the agent is still writing.'),
});

export const output = z.object({
  agent_id: z.string().describe('The agent that answered.'),
  session_id: z.string().describe('Pass this back as session_id to continue the conversation.'),
  reply: z.string().describe("The agent's reply (while pending, the text so far)."),
  pending: z.boolean().optional().describe('True while the agent is still writing this reply: call chat_with_agent again with this session_id and no message for the rest.'),
  handle: z.string().optional().describe('While pending: names this reply, for a call that collects or stops it.'),
  tool_calls: z.array(z.object({
    chain: z.string().describe('The agents the call was made in, outermost first, e.g. "research → writer".'),
    name: z.string().describe('The tool called, e.g. "docs.search" or "agent:writer".'),
    arguments: z.string().describe('Its arguments as JSON, shortened.'),
    ok: z.boolean().describe('False when the tool failed or was refused; the agent read why.'),
    limit: z.string().optional().describe('The variable of the bound that refused the call, when one did (e.g. AGENT_MAX_TOOL_CALLS_TOTAL, RATE_LIMIT_PRINCIPAL).'),
  })).optional().describe('The tool calls made for this reply, in order (agents that use tools only).'),
});
