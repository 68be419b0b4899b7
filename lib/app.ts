/** The default server of a deployment: identity, the agent tools, and the embedded store. */

import { chatWithAgentTool } from './agent/chat-tool.js';
import type { Config } from './config.js';
import { createRegistry, type RegistryDefinition } from './server/registry.js';
import type { ServerInfo } from './server/server.js';

export const SERVER_INFO: ServerInfo = {
  name: 'agent-mcp',
  title: 'agent-mcp',
  version: '0.1.0',
  description: 'Any AI agent as an MCP server: chat with it as a tool.',
};

export const INSTRUCTIONS =
  'This server puts AI agents on MCP. Call chat_with_agent to send a message to an agent and get its reply.';

export function defaultRegistryDefinition(_config: Config): RegistryDefinition {
  return { tools: [chatWithAgentTool()] };
}

export function defaultRegistry(config: Config) {
  return createRegistry(defaultRegistryDefinition(config));
}
