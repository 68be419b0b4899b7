/**
 * The JSON Schemas `chat_with_agent` publishes: what zod computes for chat-schema.ts, written out so that
 * tools/list needs no zod (test/agent/chat-schema.test.ts fails, showing the new value, when they drift).
 */

export const INPUT_JSON_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    agent_id: {
      description: 'The id of the agent to talk to (see the agent:// resources). May be omitted when the server has one agent.',
      type: 'string',
      minLength: 1,
    },
    message: {
      description: 'Your message to the agent, in natural language. Leave it out only to collect a reply the agent is still writing (with its session_id).',
      type: 'string',
      minLength: 1,
      maxLength: 100000,
    },
    session_id: {
      description: 'Continue an earlier conversation: pass the session_id a previous reply returned. Omit to start a new one.',
      type: 'string',
      minLength: 1,
      maxLength: 200,
    },
    handle: {
      description: 'Collect a reply the agent is still writing by the handle its earlier answer gave (the session_id alone does the same).',
      type: 'string',
      minLength: 1,
      maxLength: 200,
    },
    cancel: {
      description: 'With session_id or handle and no message: stop the reply the agent is still writing.',
      type: 'boolean',
    },
  },
};

export const OUTPUT_JSON_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    agent_id: { type: 'string', description: 'The agent that answered.' },
    session_id: { type: 'string', description: 'Pass this back as session_id to continue the conversation.' },
    reply: { type: 'string', description: "The agent's reply (while pending, the text so far)." },
    pending: {
      description: 'True while the agent is still writing this reply: call chat_with_agent again with this session_id and no message for the rest.',
      type: 'boolean',
    },
    handle: { description: 'While pending: names this reply, for a call that collects or stops it.', type: 'string' },
    tool_calls: {
      description: 'The tool calls made for this reply, in order (agents that use tools only).',
      type: 'array',
      items: {
        type: 'object',
        properties: {
          chain: { type: 'string', description: 'The agents the call was made in, outermost first, e.g. "research → writer".' },
          name: { type: 'string', description: 'The tool called, e.g. "docs.search" or "agent:writer".' },
          arguments: { type: 'string', description: 'Its arguments as JSON, shortened.' },
          ok: { type: 'boolean', description: 'False when the tool failed or was refused; the agent read why.' },
          limit: { type: 'string', description: 'The variable of the bound that refused the call, when one did (e.g. AGENT_MAX_TOOL_CALLS_TOTAL, RATE_LIMIT_PRINCIPAL).' },
        },
        required: ['chain', 'name', 'arguments', 'ok'],
        additionalProperties: false,
      },
    },
  },
  required: ['agent_id', 'session_id', 'reply'],
  additionalProperties: false,
};
