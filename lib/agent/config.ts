/**
 * Which agents this deployment serves, from the environment, checked at start-up (lib/checks.ts):
 * - the default agent from AGENT_URL, AGENT_FORMAT (a format of upstream/index.ts), AGENT_API_KEY, AGENT_MODEL, AGENT_TIMEOUT_MS;
 * - more agents from AGENTS, a JSON array (docs/agents.md "Agents"); their keys are named by `apiKeyEnv`, never inlined;
 * - with neither, the in-process demo agent.
 * Any agent may name the tools it uses (`tools`, AGENT_TOOLS for the default agent; tool-patterns.ts), bounded by
 * the limits of readToolLimits; an `agent:<id>` naming no agent stops start-up.
 */

import { type Check, ENV_NAME, findProblem, isHttpUrl, isRecord, isNonEmptyString, isPositiveInteger, matches, oneOf, optional, required } from '../checks.js';
import { integerEnv, parseJsonEnv } from '../config.js';
import { readRequestBounds } from '../http/bounds.js';
import { DEMO_AGENT, demoAgent } from './demo.js';
import type { BudgetLimits } from './budget.js';
import { namedAgents, patternProblem } from './tool-patterns.js';
import type { Agent, AgentProfile, InProcessAgent } from './types.js';
import { ERROR_DETAILS, type ErrorDetail } from './upstream/error-text.js';
import { DEFAULT_MAX_TOOL_CALLS_PER_REPLY } from './upstream/openai.js';
import { DEFAULT_MAX_TOKENS, FORMAT_FIELD_CHECKS, FORMAT_TABLE, FORMATS, type Format } from './upstream/index.js';
import { DEFAULT_MAX_REPLY_BYTES } from './upstream/request.js';
import { DEFAULT_MAX_CONCURRENT_CALLS } from '../limits/concurrency.js';
import { parseRate, type Rate } from '../limits/rate.js';
import { parseUsd } from '../pay/price.js';
import type { TokenPrices, UsdPrice } from '../pay/price.js';

/** An agent's token prices as configured: the ceiling may come from X402_MAX_PRICE (readAgents). */
type AgentPrices = Omit<TokenPrices, 'max'> & { max?: UsdPrice };
/** An agent as read, before its ceiling is settled. */
type ReadAgent = Omit<Agent, 'prices'> & { prices?: AgentPrices };

type Env = Record<string, string | undefined>;

const DEFAULT_TIMEOUT_MS = 120_000;
const AGENT_ID = /^[A-Za-z0-9_.-]{1,64}$/;

interface UpstreamAgentConfig {
  id: string;
  name?: string;
  description?: string;
  format: Format;
  url: string;
  model?: string;
  apiKeyEnv?: string;
  timeoutMs?: number;
  systemPrompt?: string;
  upstreamAgent?: string;
  tools?: string[];
  maxToolSteps?: number;
  maxTokens?: number;
  body?: Record<string, unknown>;
  /** Header name → the variable holding its value, added to each request. */
  headersEnv?: Record<string, string>;
  /** Tokens each caller may spend with this agent per window (lib/limits/tokens.ts), e.g. `20000/1d`. */
  tokenBudget?: string;
  /** This agent's token prices (USD per million tokens) and ceiling per call, over X402_PRICE_INPUT/OUTPUT/X402_MAX_PRICE. */
  priceInput?: string;
  priceOutput?: string;
  maxPrice?: string;
}

const PRICE_FIELDS = ['priceInput', 'priceOutput', 'maxPrice'] as const;
const KEYS = new Set(['id', 'name', 'description', 'format', 'url', 'model', 'apiKeyEnv', 'timeoutMs', 'systemPrompt', 'upstreamAgent', 'tools',
  'maxToolSteps', 'tokenBudget', ...PRICE_FIELDS, ...Object.keys(FORMAT_FIELD_CHECKS)]);
const NON_EMPTY = 'must be a non-empty string';

const CHECKS: Check[] = [
  required('id', matches(AGENT_ID), 'ids are 1-64 characters of A-Z a-z 0-9 _ . -'),
  optional('name', isNonEmptyString, NON_EMPTY),
  optional('description', isNonEmptyString, NON_EMPTY),
  optional('format', oneOf(FORMATS), `must be one of ${FORMATS.join(', ')}`),
  required('url', isHttpUrl, 'must be an absolute http(s) URL'),
  optional('model', isNonEmptyString, NON_EMPTY),
  optional('apiKeyEnv', matches(ENV_NAME), 'must name an environment variable'),
  optional('timeoutMs', isPositiveInteger, 'must be a positive integer of milliseconds'),
  optional('systemPrompt', (v) => typeof v === 'string', 'must be a string'),
  optional('upstreamAgent', isNonEmptyString, NON_EMPTY),
  toolsCheck,
  optional('maxToolSteps', isPositiveInteger, 'must be a positive integer'),
  optional('tokenBudget', isTokenBudget, 'must be a token budget such as 100000/1d (tokens per window; s, m, h or d)'),
  formatCheck,
];

function isTokenBudget(value: unknown): boolean {
  try {
    return typeof value === 'string' && parseRate('tokenBudget', value, 'tokens') !== undefined;
  } catch {
    return false;
  }
}

/** An agent's `tokenBudget`, parsed; `where` names it in the error. */
function tokenBudgetOf(where: string, value: string | undefined): Rate | undefined {
  const rate = value === undefined ? undefined : parseRate(where, value, 'tokens');
  if (value !== undefined && !rate) throw new TypeError(`${where} must be a token budget such as 100000/1d; leave it out for none.`);
  return rate;
}

/**
 * An agent's own token prices (`priceInput`, `priceOutput`, per million tokens; `maxPrice`, the ceiling of one call), or
 * undefined when it sets none. Both token prices come together; without `maxPrice` the ceiling is X402_MAX_PRICE's,
 * filled in by readAgents. `where` names the agent in the error.
 */
function agentPricesOf(where: string, fields: Partial<Record<(typeof PRICE_FIELDS)[number], unknown>>): AgentPrices | undefined {
  if (PRICE_FIELDS.every((field) => fields[field] === undefined)) return undefined;
  const read = (field: (typeof PRICE_FIELDS)[number], example: string, positive: boolean) => {
    const value = fields[field];
    const price = typeof value === 'string' ? parseUsd(value) : undefined;
    if (!price || (positive && !/[1-9]/.test(price))) throw new TypeError(`${where} ${field} must be a ${positive ? 'positive ' : ''}USD amount such as ${example}, got ${JSON.stringify(value)}.`);
    return price;
  };
  if (fields.priceInput === undefined || fields.priceOutput === undefined) {
    throw new TypeError(`${where} ${fields.priceInput === undefined ? 'priceInput' : 'priceOutput'} is not set; an agent's token prices need both priceInput and priceOutput.`);
  }
  const input = read('priceInput', '"$3"', false);
  const output = read('priceOutput', '"$15"', false);
  if (!/[1-9]/.test(input + output)) throw new TypeError(`${where} priceInput and priceOutput are both zero; set a price for input or output tokens, or leave them out.`);
  return { input, output, ...(fields.maxPrice !== undefined ? { max: read('maxPrice', '"$0.50"', true) } : {}) };
}

/** What the entry's format (upstream/index.ts) asks of it: its own checks, its own fields only, `tools` only where it calls ours. */
function formatCheck(entry: Record<string, unknown>): string | undefined {
  const format = (entry.format ?? 'openai') as Format;
  const row = FORMAT_TABLE[format];
  if (entry.tools !== undefined && row.ownTools) return `tools: ${toolFormats()} agents call tools (${row.ownTools})`;
  for (const [field, check] of Object.entries(FORMAT_FIELD_CHECKS)) {
    if (entry[field] === undefined) continue;
    if (!row.fields.includes(field)) return `${field}: is not a setting of ${format} agents`;
    const problem = check(entry);
    if (problem) return problem;
  }
  for (const check of row.checks) {
    const problem = check({ ...entry, format });
    if (problem) return problem;
  }
  return undefined;
}

/** "only openai, openai-responses and anthropic": the formats that call the team's tools. */
function toolFormats(): string {
  const names = FORMATS.filter((format) => !FORMAT_TABLE[format].ownTools);
  return `only ${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** `tools`: an array of tool patterns (tool-patterns.ts), each checked, naming the first bad one. */
function toolsCheck(entry: Record<string, unknown>): string | undefined {
  const tools = entry.tools;
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return 'tools: must be an array of tool patterns such as "github.*", "notes.add", "agent:research"';
  for (const [i, pattern] of tools.entries()) {
    const problem = patternProblem(pattern);
    if (problem) return `tools.${i}: ${JSON.stringify(pattern)} ${problem}`;
  }
  return undefined;
}

/** One agent's settings with defaults, or a TypeError naming `variable`, the agent (`who`) and the field. */
function toUpstreamConfig(variable: string, entry: unknown, who = ''): UpstreamAgentConfig {
  const problem = findProblem(entry, KEYS, CHECKS, 'an agent setting');
  if (problem) throw new TypeError(`${variable} is invalid: ${who}${problem}${problem.endsWith('?') ? '' : '.'}`);
  const config = entry as Omit<UpstreamAgentConfig, 'format'> & { format?: UpstreamAgentConfig['format'] };
  return { ...config, format: config.format ?? 'openai' };
}

/** An in-process agent a deployment adds in code (see docs/agents.md "Agents"). */
export interface InProcessAgentDefinition {
  id: string;
  name: string;
  description: string;
  reply: InProcessAgent;
  /** Tool patterns the agent may use through `turn.tools` (tool-patterns.ts); none by default. */
  tools?: string[];
  /** Tokens each caller may spend with this agent per window (lib/limits/tokens.ts), e.g. `20000/1d`; none by default. */
  tokenBudget?: string;
  /** This agent's token prices (USD per million tokens, e.g. `$3`) and ceiling per paid call; see AGENTS' fields. */
  priceInput?: string;
  priceOutput?: string;
  maxPrice?: string;
}

/** Bounds on agents that use tools (docs/agents.md "Give your agent tools"). */
export interface ToolLimits {
  /** AGENT_MAX_TOOL_STEPS: rounds of tool calls in one turn before the turn ends without an answer. */
  maxSteps: number;
  /** AGENT_MAX_DEPTH: agents deep a chain may go (the called agent counts as 1). */
  maxDepth: number;
  /** AGENT_MAX_TOOL_CALLS: calls run in one step; the rest are answered "not run". */
  maxCallsPerStep: number;
  /** AGENT_MAX_TOOL_CALLS_PER_REPLY: distinct calls one reply may ask for; past it the turn fails. */
  maxCallsPerReply: number;
  /** AGENT_TOOL_RESULT_MAX_BYTES: the most of one tool result the model is sent. */
  maxResultBytes: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = {
  maxSteps: 8, maxDepth: 3, maxCallsPerStep: 16, maxCallsPerReply: DEFAULT_MAX_TOOL_CALLS_PER_REPLY, maxResultBytes: 16 * 1024,
};

/** The tool limits from the environment; a TypeError names a bad variable. */
export function readToolLimits(env: Env): ToolLimits {
  return {
    maxSteps: integerEnv(env, 'AGENT_MAX_TOOL_STEPS', DEFAULT_TOOL_LIMITS.maxSteps),
    maxDepth: integerEnv(env, 'AGENT_MAX_DEPTH', DEFAULT_TOOL_LIMITS.maxDepth),
    maxCallsPerStep: integerEnv(env, 'AGENT_MAX_TOOL_CALLS', DEFAULT_TOOL_LIMITS.maxCallsPerStep),
    maxCallsPerReply: integerEnv(env, 'AGENT_MAX_TOOL_CALLS_PER_REPLY', DEFAULT_TOOL_LIMITS.maxCallsPerReply),
    maxResultBytes: integerEnv(env, 'AGENT_TOOL_RESULT_MAX_BYTES', DEFAULT_TOOL_LIMITS.maxResultBytes, 256, 'an integer of at least 256'),
  };
}

/**
 * What one chat call may cost in all, nested agents included (budget.ts), by default. The counts bring the worst
 * case of the per-turn limits (16 calls × 8 steps × 3 agents deep: 17,545 model requests, 185 at once) down to a
 * few dozen, 8 at once; a whole turn gets five upstream timeouts, 10 minutes at the default AGENT_TIMEOUT_MS (on
 * Vercel the function's maxDuration, 300 s in vercel.json, comes first).
 */
export function defaultBudget(timeoutMs: number): BudgetLimits {
  return { maxUpstreamCalls: 64, maxToolCalls: 128, maxParallel: 8, turnTimeoutMs: 5 * timeoutMs };
}

/** The request budget from the environment; a TypeError names a bad variable. */
export function readBudgetLimits(env: Env): BudgetLimits {
  const defaults = defaultBudget(readAgentTimeout(env));
  return {
    maxUpstreamCalls: integerEnv(env, 'AGENT_MAX_UPSTREAM_CALLS', defaults.maxUpstreamCalls),
    maxToolCalls: integerEnv(env, 'AGENT_MAX_TOOL_CALLS_TOTAL', defaults.maxToolCalls),
    maxParallel: integerEnv(env, 'AGENT_MAX_PARALLEL_CALLS', defaults.maxParallel),
    turnTimeoutMs: integerEnv(env, 'AGENT_TURN_TIMEOUT_MS', defaults.turnTimeoutMs, 1, 'a positive integer of milliseconds'),
  };
}

/** AGENT_TOOLS: the default agent's tool patterns, comma-separated (checked with the others in checkAgentTools). */
function readDefaultTools(env: Env): string[] | undefined {
  const raw = env.AGENT_TOOLS?.trim();
  return raw ? raw.split(',').map((p) => p.trim()).filter(Boolean) : undefined;
}

/** AGENT_MAX_REPLY_BYTES, the most bytes of reply an upstream agent may send (default 8 MiB). */
export function readAgentMaxReplyBytes(env: Env): number {
  return integerEnv(env, 'AGENT_MAX_REPLY_BYTES', DEFAULT_MAX_REPLY_BYTES);
}

/** AGENT_ERROR_DETAIL: `log` (an upstream's error text goes to the log only; the default) or `pass` (callers get a short cause too). */
export function readAgentErrorDetail(env: Env): ErrorDetail {
  const raw = env.AGENT_ERROR_DETAIL?.trim().toLowerCase() || 'log';
  if (!(ERROR_DETAILS as readonly string[]).includes(raw)) {
    throw new TypeError(`AGENT_ERROR_DETAIL must be ${ERROR_DETAILS.join(' or ')}, got "${env.AGENT_ERROR_DETAIL}".`);
  }
  return raw as ErrorDetail;
}

/** A chat call still unanswered after this long becomes a task, for clients that support tasks (docs/tasks.md). */
export const DEFAULT_TASK_AFTER_MS = 5_000;

/** AGENT_TASK_AFTER_MS: 0 makes every chat call of a task-capable client a task at once. */
export function readAgentTaskAfter(env: Env): number {
  return integerEnv(env, 'AGENT_TASK_AFTER_MS', DEFAULT_TASK_AFTER_MS, 0, 'a whole number of milliseconds (0 or more)');
}

/** How a chat call answers a caller that did not ask for a task when its agent is slow (docs/agents.md "Slow agents"). */
export interface ReplyDeadlineSettings {
  /** AGENT_REPLY_DEADLINE_MS: a call still running after this long answers with what it has; its run goes on. */
  ms: number;
  /** AGENT_BACKGROUND_TTL_MS: how long a run that outlived its call is kept, its reply included, after its last change. */
  ttlMs: number;
  /** AGENT_MAX_BACKGROUND_RUNS: runs that outlived their call, per caller at once on an instance. */
  maxRuns: number;
}

/**
 * The deadline: under the cut-off of the hosted clients (about 60 s), with room for the answer's way back. The runs: as
 * many as the caller's concurrent calls (MCP_MAX_CONCURRENT_CALLS), since a run is one of those calls going on; with
 * fewer, a caller whose allowed calls were all slow had the rest stopped at the deadline (issue 48; what a run costs:
 * docs/rate-limits.md "Calls in flight").
 */
export const DEFAULT_REPLY_DEADLINE: Readonly<ReplyDeadlineSettings> = { ms: 45_000, ttlMs: 3_600_000, maxRuns: DEFAULT_MAX_CONCURRENT_CALLS };

/** The reply deadline from the environment; undefined when AGENT_REPLY_DEADLINE_MS is `off` (a call then runs to its end). */
export function readReplyDeadline(env: Env): ReplyDeadlineSettings | undefined {
  const ttlMs = integerEnv(env, 'AGENT_BACKGROUND_TTL_MS', DEFAULT_REPLY_DEADLINE.ttlMs, 1, 'a positive integer of milliseconds');
  const maxRuns = integerEnv(env, 'AGENT_MAX_BACKGROUND_RUNS', DEFAULT_REPLY_DEADLINE.maxRuns);
  if (env.AGENT_REPLY_DEADLINE_MS?.trim().toLowerCase() === 'off') return undefined;
  const ms = integerEnv(env, 'AGENT_REPLY_DEADLINE_MS', DEFAULT_REPLY_DEADLINE.ms, 1, 'a positive integer of milliseconds, or off');
  return { ms, ttlMs, maxRuns };
}

/** AGENT_TIMEOUT_MS, the longest an upstream agent may go without sending a byte. */
export function readAgentTimeout(env: Env): number {
  if (env.AGENT_TIMEOUT_MS === undefined) return DEFAULT_TIMEOUT_MS;
  const value = Number(env.AGENT_TIMEOUT_MS);
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`AGENT_TIMEOUT_MS must be a positive integer, got "${env.AGENT_TIMEOUT_MS}".`);
  return value;
}

function readDefaultAgent(env: Env): UpstreamAgentConfig | undefined {
  const tools = readDefaultTools(env);
  if (!env.AGENT_URL) {
    if (tools) throw new TypeError('AGENT_TOOLS names tools for the default agent, but AGENT_URL (which makes it) is not set.');
    return undefined;
  }
  const config = toUpstreamConfig('AGENT_URL/AGENT_FORMAT/AGENT_MODEL', {
    id: 'default',
    name: 'Default agent',
    format: env.AGENT_FORMAT || 'openai',
    url: env.AGENT_URL,
    ...(env.AGENT_MODEL ? { model: env.AGENT_MODEL } : {}),
    ...(env.AGENT_API_KEY ? { apiKeyEnv: 'AGENT_API_KEY' } : {}),
  });
  if (!tools) return config;
  const ownTools = FORMAT_TABLE[config.format].ownTools;
  if (ownTools) throw new TypeError(`AGENT_TOOLS: ${toolFormats()} agents call tools (${ownTools}); AGENT_FORMAT is ${config.format}.`);
  return { ...config, tools };
}

function readAgentList(env: Env): UpstreamAgentConfig[] {
  if (!env.AGENTS) return [];
  const json = parseJsonEnv('AGENTS', env.AGENTS, 'a JSON array of agent objects');
  if (!Array.isArray(json) || json.length === 0) throw new TypeError('AGENTS must be a JSON array of agent objects.');
  const agents = json.map((entry: unknown, index) => {
    // A key written into AGENTS would live in every copy of the variable; say how to name it instead.
    if (isRecord(entry) && ('apiKey' in entry || 'key' in entry || 'token' in entry)) {
      const id = typeof entry.id === 'string' ? entry.id : String(index);
      throw new TypeError(`AGENTS: agent ${id} inlines its key; put the key in its own variable and name it with "apiKeyEnv", e.g. "apiKeyEnv": "${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_API_KEY".`);
    }
    // The agent's id says which one is meant far better than its place in the array.
    const id = isRecord(entry) && typeof entry.id === 'string' && AGENT_ID.test(entry.id) ? entry.id : undefined;
    return toUpstreamConfig('AGENTS', entry, id === undefined ? `entry ${index}: ` : `agent ${id} (entry ${index}): `);
  });
  for (const agent of agents) {
    if (agent.apiKeyEnv && !env[agent.apiKeyEnv]) throw new TypeError(`AGENTS: agent ${agent.id} names apiKeyEnv ${agent.apiKeyEnv}, which is not set.`);
    for (const [header, variable] of Object.entries(agent.headersEnv ?? {})) {
      if (!env[variable]) throw new TypeError(`AGENTS: agent ${agent.id} names headersEnv.${header} ${variable}, which is not set.`);
    }
  }
  return agents;
}

/** What every upstream agent shares: the settings read once from the environment. */
interface UpstreamSettings {
  timeoutMs: number;
  maxReplyBytes: number;
  /** MCP_MAX_JSON_DEPTH: the request body's depth bound holds for every upstream's JSON too (upstream/json.ts). */
  maxJsonDepth: number;
  errorDetail: ErrorDetail;
  paid: boolean;
  limits: ToolLimits;
}

function toAgent(config: UpstreamAgentConfig, env: Env, { timeoutMs, maxReplyBytes, maxJsonDepth, errorDetail, paid, limits }: UpstreamSettings): ReadAgent {
  const row = FORMAT_TABLE[config.format];
  const profile: AgentProfile = {
    id: config.id,
    name: config.name ?? config.id,
    description: config.description ?? row.description,
    kind: config.format,
    paid,
  };
  const apiKey = config.apiKeyEnv ? env[config.apiKeyEnv] : undefined;
  const headers = { ...row.auth(apiKey) };
  for (const [header, variable] of Object.entries(config.headersEnv ?? {})) headers[header.toLowerCase()] = env[variable]!;
  const agent = row.create(profile, {
    target: { agentId: config.id, url: config.url, origin: new URL(config.url).origin, apiKey, headers, timeoutMs: config.timeoutMs ?? timeoutMs, maxReplyBytes, maxJsonDepth, errorDetail },
    model: config.model,
    systemPrompt: config.systemPrompt,
    upstreamAgent: config.upstreamAgent,
    maxTokens: config.maxTokens ?? DEFAULT_MAX_TOKENS,
    body: config.body,
    maxToolSteps: config.maxToolSteps ?? limits.maxSteps,
    maxToolCalls: limits.maxCallsPerStep,
    maxToolCallsPerReply: limits.maxCallsPerReply,
  });
  const tokenBudget = tokenBudgetOf(`AGENTS: agent ${config.id} tokenBudget`, config.tokenBudget);
  const prices = agentPricesOf(`AGENTS: agent ${config.id}`, config);
  return { ...agent, ...(config.tools ? { tools: config.tools } : {}), ...(tokenBudget ? { tokenBudget } : {}), ...(prices ? { prices } : {}) };
}

function inProcess(definition: InProcessAgentDefinition, paid: boolean): ReadAgent {
  return {
    profile: { id: definition.id, name: definition.name, description: definition.description, kind: 'in-process', paid },
    keepsHistory: true,
    reply: definition.reply,
    ...(definition.tools ? { tools: definition.tools } : {}),
    ...(definition.tokenBudget !== undefined ? { tokenBudget: tokenBudgetOf(`in-process agent ${definition.id} tokenBudget`, definition.tokenBudget) } : {}),
    ...withPrices(agentPricesOf(`in-process agent ${definition.id}`, definition)),
  };
}

const withPrices = (prices: AgentPrices | undefined) => (prices ? { prices } : {});

/** Each agent's own token budget per caller (`tokenBudget`), by id: what lib/limits/tokens.ts charges. */
export function agentTokenBudgets(agents: readonly Agent[]): ReadonlyMap<string, Rate> {
  return new Map(agents.flatMap((a) => (a.tokenBudget ? [[a.profile.id, a.tokenBudget] as const] : [])));
}

/** The agents of a deployment, in a stable order; throws a TypeError naming the variable on bad config. */
export function readAgents(env: Env, extra: InProcessAgentDefinition[] = []): Agent[] {
  const paid = Boolean(env.X402_PAY_TO);
  const settings: UpstreamSettings = {
    timeoutMs: readAgentTimeout(env),
    maxReplyBytes: readAgentMaxReplyBytes(env),
    maxJsonDepth: readRequestBounds(env).maxJsonDepth,
    errorDetail: readAgentErrorDetail(env),
    paid,
    limits: readToolLimits(env),
  };
  const configured = [readDefaultAgent(env), ...readAgentList(env)].filter((a): a is UpstreamAgentConfig => a !== undefined);
  const read = [...configured.map((c) => toAgent(c, env, settings)), ...extra.map((d) => inProcess(d, paid))];
  if (read.length === 0) read.push(inProcess({ ...DEMO_AGENT, reply: demoAgent }, paid));
  const agents = read.map((agent) => withCeiling(agent, env, paid));
  const ids = new Set<string>();
  for (const agent of agents) {
    if (ids.has(agent.profile.id)) throw new TypeError(`AGENTS: duplicate agent id "${agent.profile.id}".`);
    ids.add(agent.profile.id);
  }
  for (const agent of agents) checkAgentTools(agent, ids);
  return agents;
}

/**
 * A paid agent's prices without `maxPrice` take X402_MAX_PRICE's ceiling; with neither, start-up stops naming the agent.
 * Without X402_PAY_TO nothing is paid, so the prices are checked (above) and not kept.
 */
function withCeiling({ prices, ...agent }: ReadAgent, env: Env, paid: boolean): Agent {
  if (!prices || !paid) return agent;
  if (prices.max) return { ...agent, prices: { ...prices, max: prices.max } };
  const max = parseUsd(env.X402_MAX_PRICE);
  if (!max) throw new TypeError(`agent ${agent.profile.id} sets priceInput and priceOutput but no maxPrice, and X402_MAX_PRICE is not set: give it a maxPrice (the most one call may cost, e.g. "$0.50").`);
  return { ...agent, prices: { ...prices, max } };
}

/** Every `agent:<id>` an agent names must be an agent; an in-process agent's patterns are checked here too. */
function checkAgentTools({ profile, tools }: Agent, ids: Set<string>): void {
  if (!tools) return;
  const source = profile.kind === 'in-process' ? `in-process agent ${profile.id}` : profile.id === 'default' ? 'AGENT_TOOLS' : 'AGENTS';
  const bad = tools.map((p) => [p, patternProblem(p)] as const).find(([, problem]) => problem);
  if (bad) throw new TypeError(`${source}: agent ${profile.id}: tool ${JSON.stringify(bad[0])} ${bad[1]}.`);
  const unknown = namedAgents(tools).find((id) => !ids.has(id));
  if (unknown !== undefined) {
    throw new TypeError(`${source}: agent ${profile.id} names tool "agent:${unknown}", but no agent has id "${unknown}" (agents: ${[...ids].join(', ')}).`);
  }
}
