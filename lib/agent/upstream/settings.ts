/** What a format is given to make an agent (index.ts), and the shape of a format's module loaded on first use. */

import type { Agent, AgentProfile } from '../types.js';
import type { Kit } from './kit.js';
import type { UpstreamTarget } from './request.js';

/** An agent's settings as its format receives them: checked, with the deployment's defaults filled in. */
export interface FormatSettings {
  /** The configured URL, the key's headers and the reply bounds; a format may derive the URLs it calls from `url`. */
  target: UpstreamTarget;
  model?: string;
  systemPrompt?: string;
  /** platform: the upstream's own name for the agent. */
  upstreamAgent?: string;
  /** anthropic: `max_tokens` of each request. */
  maxTokens: number;
  /** ai-sdk: fields added to each request body. */
  body?: Record<string, unknown>;
  /** Rounds of tool calls in one turn, calls run per round, distinct calls one reply may ask for. */
  maxToolSteps: number;
  maxToolCalls: number;
  maxToolCallsPerReply: number;
}

/** A module of a format loaded on first use: it makes the agent's reply from what the start path hands it. */
export interface LazyFormat {
  createReply(kit: Kit, profile: AgentProfile, settings: FormatSettings): Agent['reply'];
}

