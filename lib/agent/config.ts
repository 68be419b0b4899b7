/**
 * Which agents this deployment serves, from the environment, validated with zod at start-up:
 * - the default agent from AGENT_URL, AGENT_FORMAT (openai | platform), AGENT_API_KEY, AGENT_MODEL, AGENT_TIMEOUT_MS;
 * - more agents from AGENTS, a JSON array (README "Agents"); their keys are named by `apiKeyEnv`, never inlined;
 * - with neither, the in-process demo agent.
 */

// zod/mini: the same validation with a far smaller import, since this runs at every cold start.
import * as z from 'zod/mini';
import { parseJsonEnv } from '../config.js';
import { DEMO_AGENT, demoAgent } from './demo.js';
import type { Agent, AgentProfile, InProcessAgent } from './types.js';
import { createOpenAiAgent } from './upstream/openai.js';
import { createPlatformAgent } from './upstream/platform.js';

type Env = Record<string, string | undefined>;

const DEFAULT_TIMEOUT_MS = 120_000;
const AGENT_ID = /^[A-Za-z0-9_.-]{1,64}$/;

const nonEmpty = () => z.string().check(z.minLength(1));

const upstreamAgent = z.object({
  id: z.string().check(z.regex(AGENT_ID, 'ids are 1-64 characters of A-Z a-z 0-9 _ . -')),
  name: z.optional(nonEmpty()),
  description: z.optional(nonEmpty()),
  format: z._default(z.enum(['openai', 'platform']), 'openai'),
  url: z.url({ protocol: /^https?$/ }),
  model: z.optional(nonEmpty()),
  apiKeyEnv: z.optional(z.string().check(z.regex(/^[A-Z_][A-Z0-9_]*$/))),
  timeoutMs: z.optional(z.number().check(z.int(), z.positive())),
  systemPrompt: z.optional(z.string()),
  upstreamAgent: z.optional(nonEmpty()),
}).check(z.refine((a) => a.format !== 'openai' || Boolean(a.model), { message: 'openai agents need a model', path: ['model'] }));

type UpstreamAgentConfig = z.output<typeof upstreamAgent>;

/** An in-process agent a deployment adds in code (see README "Agents"). */
export interface InProcessAgentDefinition {
  id: string;
  name: string;
  description: string;
  reply: InProcessAgent;
}

function explain(variable: string, error: { issues: Array<{ path: PropertyKey[]; message: string }> }): TypeError {
  const detail = error.issues.map((i) => `${i.path.map(String).join('.') || '(value)'}: ${i.message}`).join('; ');
  return new TypeError(`${variable} is invalid: ${detail}`);
}

/** AGENT_TIMEOUT_MS, the longest an upstream agent may take. */
export function readAgentTimeout(env: Env): number {
  if (env.AGENT_TIMEOUT_MS === undefined) return DEFAULT_TIMEOUT_MS;
  const value = Number(env.AGENT_TIMEOUT_MS);
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`AGENT_TIMEOUT_MS must be a positive integer, got "${env.AGENT_TIMEOUT_MS}".`);
  return value;
}

function readDefaultAgent(env: Env): UpstreamAgentConfig | undefined {
  if (!env.AGENT_URL) return undefined;
  const parsed = upstreamAgent.safeParse({
    id: 'default',
    name: 'Default agent',
    format: env.AGENT_FORMAT || 'openai',
    url: env.AGENT_URL,
    model: env.AGENT_MODEL,
    apiKeyEnv: env.AGENT_API_KEY ? 'AGENT_API_KEY' : undefined,
  });
  if (!parsed.success) throw explain('AGENT_URL/AGENT_FORMAT/AGENT_MODEL', parsed.error);
  return parsed.data;
}

function readAgentList(env: Env): UpstreamAgentConfig[] {
  if (!env.AGENTS) return [];
  const json = parseJsonEnv('AGENTS', env.AGENTS, 'a JSON array of agent objects');
  const parsed = z.array(upstreamAgent).check(z.minLength(1)).safeParse(json);
  if (!parsed.success) throw explain('AGENTS', parsed.error);
  for (const agent of parsed.data) {
    if (agent.apiKeyEnv && !env[agent.apiKeyEnv]) throw new TypeError(`AGENTS: agent ${agent.id} names apiKeyEnv ${agent.apiKeyEnv}, which is not set.`);
  }
  return parsed.data;
}

function toAgent(config: UpstreamAgentConfig, env: Env, timeoutMs: number, paid: boolean): Agent {
  const profile: AgentProfile = {
    id: config.id,
    name: config.name ?? config.id,
    description: config.description ?? `An agent reached through an ${config.format === 'openai' ? 'OpenAI-compatible' : 'platform'} chat endpoint.`,
    kind: config.format,
    paid,
  };
  const target = {
    agentId: config.id,
    apiKey: config.apiKeyEnv ? env[config.apiKeyEnv] : undefined,
    timeoutMs: config.timeoutMs ?? timeoutMs,
  };
  return config.format === 'openai'
    ? createOpenAiAgent(profile, { ...target, baseUrl: config.url, model: config.model!, systemPrompt: config.systemPrompt })
    : createPlatformAgent(profile, { ...target, url: config.url, upstreamAgent: config.upstreamAgent });
}

function inProcess(definition: InProcessAgentDefinition, paid: boolean): Agent {
  return {
    profile: { id: definition.id, name: definition.name, description: definition.description, kind: 'in-process', paid },
    keepsHistory: true,
    reply: definition.reply,
  };
}

/** The agents of a deployment, in a stable order; throws a TypeError naming the variable on bad config. */
export function readAgents(env: Env, extra: InProcessAgentDefinition[] = []): Agent[] {
  const timeoutMs = readAgentTimeout(env);
  const paid = Boolean(env.X402_PAY_TO);
  const configured = [readDefaultAgent(env), ...readAgentList(env)].filter((a): a is UpstreamAgentConfig => a !== undefined);
  const agents = [...configured.map((c) => toAgent(c, env, timeoutMs, paid)), ...extra.map((d) => inProcess(d, paid))];
  if (agents.length === 0) agents.push(inProcess({ ...DEMO_AGENT, reply: demoAgent }, paid));
  const ids = new Set<string>();
  for (const agent of agents) {
    if (ids.has(agent.profile.id)) throw new TypeError(`AGENTS: duplicate agent id "${agent.profile.id}".`);
    ids.add(agent.profile.id);
  }
  return agents;
}
