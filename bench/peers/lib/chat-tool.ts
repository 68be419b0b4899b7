/**
 * The one tool every peer serves: the same name, schemas and annotations as agent-mcp's `chat_with_agent`
 * with its offline demo agent, answering with the same echo. Peers register it with their own API.
 */

import * as z from 'zod';

export const NAME = 'chat_with_agent';

export const CONFIG = {
  title: 'Chat with an agent',
  description: 'Send a message to an AI agent and get its reply. Use this to delegate a task or question to one of these agents: '
    + 'demo (Demo agent: An offline demo agent that echoes your message. Set AGENT_URL to put your own agent here.). Each reply '
    + 'includes a session_id; pass it back to continue the same conversation, or omit it to start fresh.',
  inputSchema: z.object({
    agent_id: z.string().min(1).optional().describe('The id of the agent to talk to (see the agent:// resources). May be omitted when the server has one agent.'),
    message: z.string().min(1).max(100_000).describe('Your message to the agent, in natural language.'),
    session_id: z.string().min(1).max(200).optional().describe('Continue an earlier conversation: pass the session_id a previous reply returned. Omit to start a new one.'),
  }),
  outputSchema: z.object({
    agent_id: z.string().describe('The agent that answered.'),
    session_id: z.string().describe('Pass this back as session_id to continue the conversation.'),
    reply: z.string().describe("The agent's reply."),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
};

export function chat({ message, session_id }: { message: string; session_id?: string }) {
  const reply = `[demo agent] Turn 1. You said: "${message}". I am the offline demo agent of agent-mcp; set AGENT_URL to put your own agent here.`;
  const structuredContent = { agent_id: 'demo', session_id: session_id ?? crypto.randomUUID(), reply };
  return { content: [{ type: 'text' as const, text: reply }], structuredContent };
}
