/** The agent layer as registry definitions: the `chat_with_agent` tool and the `agent://` resources. */

import type { RegistryDefinition } from '../server/registry.js';
import { chatWithAgentTool } from './chat-tool.js';
import { readAgentTaskAfter, readAgentTimeout, readAgents, type InProcessAgentDefinition } from './config.js';
import { createDemoAgent, demoAgent, type ListTools } from './demo.js';
import { agentResources } from './resources.js';

export type { InProcessAgentDefinition } from './config.js';
export type { InProcessAgent, AgentTurn } from './types.js';

export interface AgentOptions {
  /** Lets the demo agent list the tools it could call (an in-process client on the app). */
  listTools?: ListTools;
}

/** The agents configured in `env` (plus in-process ones) as a tool and resources. */
export function agentDefinitions(
  env: Record<string, string | undefined>,
  inProcess: InProcessAgentDefinition[] = [],
  options: AgentOptions = {},
): RegistryDefinition {
  const { listTools } = options;
  const agents = readAgents(env, inProcess)
    .map((agent) => (listTools && agent.reply === demoAgent ? { ...agent, reply: createDemoAgent(listTools) } : agent));
  return {
    tools: [chatWithAgentTool({ agents, timeoutMs: readAgentTimeout(env), taskAfterMs: readAgentTaskAfter(env) })],
    resources: agentResources(agents),
  };
}
