/** The agent layer as registry definitions: the `chat_with_agent` tool and the `agent://` resources. */

import type { RegistryDefinition } from '../server/registry.js';
import { chatWithAgentTool } from './chat-tool.js';
import { readAgentTimeout, readAgents, type InProcessAgentDefinition } from './config.js';
import { agentResources } from './resources.js';

export type { InProcessAgentDefinition } from './config.js';
export type { InProcessAgent, AgentTurn } from './types.js';

/** The agents configured in `env` (plus in-process ones) as a tool and resources. */
export function agentDefinitions(env: Record<string, string | undefined>, inProcess: InProcessAgentDefinition[] = []): RegistryDefinition {
  const agents = readAgents(env, inProcess);
  return {
    tools: [chatWithAgentTool({ agents, timeoutMs: readAgentTimeout(env) })],
    resources: agentResources(agents),
  };
}
