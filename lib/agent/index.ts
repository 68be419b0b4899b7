/** The agent layer as registry definitions: the `chat_with_agent` tool, the `agent://` resources and a skill per agent. */

import type { Principal } from '../server/context.js';
import type { InProcessLimits, InProcessTransport } from '../server/in-process.js';
import type { RegistryDefinition } from '../server/registry.js';
import { chatWithAgentTool } from './chat-tool.js';
import {
  readAgentTaskAfter, readAgentTimeout, readAgents, readBudgetLimits, readReplyDeadline, readToolLimits, type InProcessAgentDefinition,
} from './config.js';
import { createDemoAgent, demoAgent, type ListTools } from './demo.js';
import { agentResources } from './resources.js';
import { agentSkills } from './skills.js';

export type { InProcessAgentDefinition } from './config.js';
export type { InProcessAgent, AgentTurn, AgentTools, OfferedTool, ToolOutcome } from './types.js';

/** Named when a deployment's own name collides with the agent layer's. */
export const AGENT_ORIGIN = 'agent-mcp itself (chat_with_agent and the agent:// resources)';

export interface AgentOptions {
  /** Lets the demo agent list the tools it could call (an in-process client on the app). */
  listTools?: ListTools;
  /**
   * An in-process transport on the app as a given principal: how agents that name tools reach them, as their
   * caller (createDefaultApp passes the app's `connectInProcess`).
   */
  connect?: (principal?: Principal, limits?: InProcessLimits) => InProcessTransport;
}

/** The agents configured in `env` (plus in-process ones) as a tool, resources and skills. */
export function agentDefinitions(
  env: Record<string, string | undefined>,
  inProcess: InProcessAgentDefinition[] = [],
  options: AgentOptions = {},
): RegistryDefinition {
  const { listTools, connect } = options;
  const agents = readAgents(env, inProcess)
    .map((agent) => (listTools && agent.reply === demoAgent ? { ...agent, reply: createDemoAgent(listTools) } : agent));
  const timeoutMs = readAgentTimeout(env);
  const withTools = agents.find((agent) => agent.tools);
  if (withTools && !connect) {
    throw new TypeError(`Agent ${withTools.profile.id} names tools, but this app gives agents no in-process client: pass \`connect\` to agentDefinitions (createDefaultApp does).`);
  }
  const tooling = connect && { connect, limits: readToolLimits(env), timeoutMs };
  const chat = chatWithAgentTool({
    agents, timeoutMs, budget: readBudgetLimits(env), tooling, taskAfterMs: readAgentTaskAfter(env), replyDeadline: readReplyDeadline(env),
  });
  // An agent is reached through the chat tool: a caller who may not call it may not read about its agents either.
  return { tools: [chat], resources: agentResources(agents, chat.scopes), skills: agentSkills(agents, chat.scopes) };
}
