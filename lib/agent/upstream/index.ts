/**
 * The upstream formats, one row each: how an agent entry of that format is checked, described, authenticated and
 * made, whether it calls the team's tools, and who keeps its conversation. config.ts reads this table and nothing
 * else about formats. `openai` and `platform` are in the start-up file; the others load their module with the first
 * call that uses them (`lazily`), so a deployment that does not use a format pays nothing for it at start. The
 * format names are this table's keys: a new format is its module and its row.
 */

import { isNonEmptyString, isPositiveInteger, isRecord, type Check } from '../../checks.js';
import type { Agent, AgentProfile } from '../types.js';
import { KIT } from './kit.js';
import { createOpenAiAgent } from './openai.js';
import { createPlatformAgent } from './platform.js';
import type { FormatSettings, LazyFormat } from './settings.js';

/**
 * Who keeps a conversation: `history`, we do, and send it with each turn (a stateless upstream); `handle`, the
 * upstream does, and we keep its id of it per conversation (a Responses id, an A2A context); `upstream`, the
 * upstream does, under an id we derive (platform).
 */
export type Keeps = 'history' | 'handle' | 'upstream';

export interface FormatEntry {
  /** How an agent's profile describes its upstream when the configuration gives no description. */
  description: string;
  /** Checks of the fields this format needs; the fields every agent shares are checked in config.ts. */
  checks: Check[];
  /** The format-specific fields it takes (config.ts refuses the others on it). */
  fields: readonly string[];
  /** For formats whose upstream runs its own tools: why `tools` stops start-up. Absent: it calls the team's tools. */
  ownTools?: string;
  keeps: Keeps;
  /** The headers that carry the configured key. */
  auth(apiKey: string | undefined): Record<string, string>;
  create(profile: AgentProfile, settings: FormatSettings): Agent;
}

const bearer = (apiKey: string | undefined): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {});
const needsModel: Check = (entry) => (entry.model !== undefined ? undefined : `model: ${entry.format} agents need a model`);

/** The Anthropic Messages API version this adapter speaks (the `anthropic-version` header). */
export const ANTHROPIC_VERSION = '2023-06-01';
/** The A2A protocol version this adapter speaks (the `A2A-Version` header of its requests). */
export const A2A_VERSION = '1.0';
/** `max_tokens` of an anthropic agent's requests unless it sets `maxTokens`. */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * A format whose module loads with the agent's first call. The module is asked for once per agent (a failed load
 * is asked for again), and the keeping of conversations is known without loading it.
 */
function lazily(load: () => Promise<LazyFormat>, keeps: Keeps): FormatEntry['create'] {
  return (profile, settings) => {
    let reply: Promise<Agent['reply']> | undefined;
    const loaded = () => (reply ??= load().then((format) => format.createReply(KIT, profile, settings), (error: unknown) => {
      reply = undefined;
      throw error;
    }));
    return {
      profile,
      keepsHistory: keeps === 'history',
      ...(keeps === 'handle' ? { keepsUpstreamState: true } : {}),
      async *reply(turn) {
        yield* (await loaded())(turn);
      },
    };
  };
}

const TABLE = {
  openai: {
    description: 'An agent reached through an OpenAI-compatible chat endpoint.',
    checks: [needsModel],
    fields: [],
    keeps: 'history',
    auth: bearer,
    create: createOpenAiAgent,
  },
  platform: {
    description: 'An agent reached through a platform chat endpoint.',
    checks: [],
    fields: [],
    ownTools: 'a platform upstream runs its own',
    keeps: 'upstream',
    auth: bearer,
    create: createPlatformAgent,
  },
  'openai-responses': {
    description: 'An agent reached through the OpenAI Responses API.',
    checks: [needsModel],
    fields: [],
    keeps: 'handle',
    auth: bearer,
    create: lazily(() => import('./responses.js'), 'handle'),
  },
  anthropic: {
    description: 'An agent reached through the Anthropic Messages API.',
    checks: [needsModel],
    fields: ['maxTokens'],
    keeps: 'history',
    auth: (apiKey) => ({ 'anthropic-version': ANTHROPIC_VERSION, ...(apiKey ? { 'x-api-key': apiKey } : {}) }),
    create: lazily(() => import('./anthropic.js'), 'history'),
  },
  'ai-sdk': {
    description: 'An agent served by an AI SDK route.',
    checks: [],
    fields: ['body', 'headersEnv'],
    ownTools: 'an AI SDK route runs its own',
    keeps: 'history',
    auth: bearer,
    create: lazily(() => import('./ai-sdk.js'), 'history'),
  },
  a2a: {
    description: 'An agent reached over A2A.',
    checks: [],
    fields: ['headersEnv'],
    ownTools: 'an A2A agent runs its own',
    keeps: 'handle',
    auth: (apiKey) => ({ 'a2a-version': A2A_VERSION, ...bearer(apiKey) }),
    create: lazily(() => import('./a2a.js'), 'handle'),
  },
} satisfies Record<string, FormatEntry>;

/** The upstream formats an agent may have (AGENT_FORMAT, an AGENTS entry's `format`), in the order they are described. */
export type Format = keyof typeof TABLE;
export const FORMAT_TABLE: Readonly<Record<Format, FormatEntry>> = TABLE;
export const FORMATS = Object.keys(TABLE) as Format[];

/** The fields only some formats take, with their checks (config.ts refuses one on a format that does not list it). */
export const FORMAT_FIELD_CHECKS: Record<string, Check> = {
  maxTokens: (entry) => (entry.maxTokens === undefined || isPositiveInteger(entry.maxTokens) ? undefined : 'maxTokens: must be a positive integer'),
  body: (entry) => (entry.body === undefined || (isRecord(entry.body) && !('messages' in entry.body) && !('id' in entry.body)) ? undefined
    : 'body: must be an object of fields to add to each request (not id or messages, which each turn sets)'),
  headersEnv: (entry) => {
    const headers = entry.headersEnv;
    if (headers === undefined) return undefined;
    if (!isRecord(headers)) return 'headersEnv: must be an object of header name → environment variable name';
    const bad = Object.entries(headers).find(([name, env]) => !/^[A-Za-z0-9-]+$/.test(name) || !isNonEmptyString(env));
    return bad ? `headersEnv.${bad[0]}: must map a header name to the name of an environment variable` : undefined;
  },
};

