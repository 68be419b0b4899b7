/** Who this server says it is: the same in initialize, server/discover, mcp.json and the server card. */

import type { ServerInfo } from './server/server.js';

export const SERVER_INFO: ServerInfo = {
  name: 'agent-mcp',
  title: 'agent-mcp',
  version: '0.1.0',
  description: 'Any AI agent as an MCP server: chat with it as a tool.',
};

export const INSTRUCTIONS =
  'This server puts AI agents on MCP. Call chat_with_agent to send a message to an agent and get its reply.';
