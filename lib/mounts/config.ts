/**
 * Which MCP servers this deployment mounts, from the environment, validated at start-up
 * (docs/mounts.md "Mount MCP servers and call agent-mcp in-process"):
 * - MCP_MOUNTS, a JSON array of `{ name, url, tokenEnv?, headersEnv?, era?, connectTimeoutMs?, callTimeoutMs?, maxCallMs?,
 *   inputRounds?, maxQuestions?, maxReplyBytes?, maxListItems?, maxListPages?, scopes? }`;
 *   credentials are named by environment variable (`tokenEnv`, `headersEnv`), never inlined and never taken
 *   from a client;
 * - MCP_MOUNTS_WAIT_MS, how long a list waits for mounts still connecting.
 * Checked by hand (lib/checks.ts): this module is on every cold start's import path, mounts or not.
 */

import { type Check, ENV_NAME, findProblem, isHttpUrl, isPositiveInteger, isRecord, matches, oneOf, optional, required } from '../checks.js';
import { parseJsonEnv } from '../config.js';

type Env = Record<string, string | undefined>;

/** Between a mount's name and a downstream name: valid in SEP-986 tool names and absent from mount names. */
export const MOUNT_SEPARATOR = '.';

const DEFAULT_WAIT_MS = 5_000;
const MOUNT_NAME = /^[A-Za-z0-9_-]{1,32}$/;
/** RFC 9110 §5.6.2 token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ERAS = ['legacy', 'auto'] as const;

/** A mount as code adds it (`mounts.add`); MCP_MOUNTS entries become this once their variables are read. */
export interface MountInput {
  /** 1-32 characters of A-Z a-z 0-9 _ -; prefixes the mounted server's tool and prompt names. */
  name: string;
  /** The mounted server's Streamable HTTP endpoint. */
  url: string;
  /** Sent on every request to the mounted server. */
  headers?: Record<string, string>;
  /** `legacy` (the 2025 handshake, default) or `auto` (probe for 2026-07-28 first). */
  era?: (typeof ERAS)[number];
  /** Longest connect-and-list, in ms (default 10 s). */
  connectTimeoutMs?: number;
  /** Longest forwarded call without progress, in ms (default 120 s). */
  callTimeoutMs?: number;
  /** Longest forwarded call in all, progress or not, questions included, in ms (default 10 min). */
  maxCallMs?: number;
  /** Most rounds of questions (MRTR `input_required`) one forwarded call may put to a 2025-wire caller (default 10). */
  inputRounds?: number;
  /** Most questions (elicitation, sampling, roots) one forwarded call may relay to its caller (default 20). */
  maxQuestions?: number;
  /** Most bytes of one reply (a JSON body, or one SSE event of a stream), and of one list across its pages (default 4 MiB). */
  maxReplyBytes?: number;
  /** Most tools, resources, templates or prompts listed from the mount, each (default 1000). */
  maxListItems?: number;
  /** Most pages followed when listing one kind (default 10). */
  maxListPages?: number;
  /**
   * OAuth scopes a caller needs for everything this mount serves (tools, resources, templates, prompts, completions,
   * listings included); absent means the server's default (AUTH_SCOPES).
   */
  scopes?: string[];
}

/**
 * What a mount may send us, by default. A reply of a few MiB leaves room for images and files in tool results;
 * more is a runaway or hostile server, and reading it would hold every caller of the instance hostage.
 */
export const MOUNT_BOUNDS = { maxReplyBytes: 4 * 1024 * 1024, maxListItems: 1_000, maxListPages: 10 } as const;

/**
 * How long and how much one forwarded call may ask of us, by default. Progress resets `callTimeoutMs`, so without
 * a total a tool that only reports progress would run forever; a few questions a call is what a tool asks a
 * person, thousands are a server flooding the caller.
 */
export const CALL_BOUNDS = { maxCallMs: 10 * 60_000, maxQuestions: 20 } as const;

/** A mount, resolved: what the connection needs and nothing a client supplied. */
export type MountConfig = Required<Omit<MountInput, 'scopes'>> & Pick<MountInput, 'scopes'>;

/** The settings a forwarded request is held to (lib/mounts/forward.ts MountLink): a call bound added above reaches it. */
const CALL_SETTINGS = ['callTimeoutMs', 'inputRounds', 'scopes', ...Object.keys(CALL_BOUNDS) as Array<keyof typeof CALL_BOUNDS>] as const;
export type CallSettings = Pick<MountConfig, (typeof CALL_SETTINGS)[number]>;

/** `config`'s call settings, and none of its credentials or URL. */
export const callSettingsOf = (config: MountConfig): CallSettings =>
  Object.fromEntries(CALL_SETTINGS.flatMap((key) => (config[key] === undefined ? [] : [[key, config[key]]]))) as CallSettings;

const COMMON_KEYS = ['name', 'url', 'era', 'connectTimeoutMs', 'callTimeoutMs', 'inputRounds', ...Object.keys(CALL_BOUNDS), ...Object.keys(MOUNT_BOUNDS), 'scopes'];
const ENV_KEYS = new Set([...COMMON_KEYS, 'tokenEnv', 'headersEnv']);
const CODE_KEYS = new Set([...COMMON_KEYS, 'headers']);
const WHAT = 'a mount setting';

const recordOf = (key: string, valid: (value: unknown) => boolean, what: string): Check => (entry) => {
  const value = entry[key];
  if (value === undefined) return undefined;
  if (!isRecord(value)) return `${key}: must be an object`;
  const bad = Object.entries(value).find(([header, v]) => !HEADER_NAME.test(header) || !valid(v));
  return bad ? `${key}.${bad[0]}: must map a header name to ${what}` : undefined;
};

/** Timers take at most 2^31 - 1 ms (about 24 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const MILLISECONDS = `must be a positive integer of milliseconds, at most ${MAX_TIMER_MS}`;
const isTimerMs = (value: unknown): boolean => isPositiveInteger(value) && (value as number) <= MAX_TIMER_MS;

const COMMON: Check[] = [
  required('name', matches(MOUNT_NAME), 'names are 1-32 characters of A-Z a-z 0-9 _ -'),
  required('url', isHttpUrl, 'must be an absolute http(s) URL'),
  optional('era', oneOf(ERAS), `must be one of ${ERAS.join(', ')}`),
  optional('connectTimeoutMs', isTimerMs, MILLISECONDS),
  optional('callTimeoutMs', isTimerMs, MILLISECONDS),
  optional('maxCallMs', isTimerMs, MILLISECONDS),
  optional('inputRounds', isPositiveInteger, 'must be a positive integer'),
  optional('maxQuestions', isPositiveInteger, 'must be a positive integer'),
  optional('maxReplyBytes', isPositiveInteger, 'must be a positive integer of bytes'),
  optional('maxListItems', isPositiveInteger, 'must be a positive integer'),
  optional('maxListPages', isPositiveInteger, 'must be a positive integer'),
  optional('scopes', (s) => Array.isArray(s) && s.every(matches(/^\S+$/)), 'must be an array of scope names'),
];

const ENV_CHECKS: Check[] = [
  ...COMMON,
  optional('tokenEnv', matches(ENV_NAME), 'must name an environment variable'),
  recordOf('headersEnv', matches(ENV_NAME), 'an environment variable name'),
];

const CODE_CHECKS: Check[] = [...COMMON, recordOf('headers', (v) => typeof v === 'string', 'a string')];

function withDefaults(entry: Record<string, unknown>, headers: Record<string, string>): MountConfig {
  return {
    name: entry.name as string,
    url: entry.url as string,
    headers,
    era: (entry.era as MountConfig['era'] | undefined) ?? 'legacy',
    connectTimeoutMs: (entry.connectTimeoutMs as number | undefined) ?? 10_000,
    callTimeoutMs: (entry.callTimeoutMs as number | undefined) ?? 120_000,
    maxCallMs: (entry.maxCallMs as number | undefined) ?? CALL_BOUNDS.maxCallMs,
    inputRounds: (entry.inputRounds as number | undefined) ?? 10,
    maxQuestions: (entry.maxQuestions as number | undefined) ?? CALL_BOUNDS.maxQuestions,
    maxReplyBytes: (entry.maxReplyBytes as number | undefined) ?? MOUNT_BOUNDS.maxReplyBytes,
    maxListItems: (entry.maxListItems as number | undefined) ?? MOUNT_BOUNDS.maxListItems,
    maxListPages: (entry.maxListPages as number | undefined) ?? MOUNT_BOUNDS.maxListPages,
    ...(entry.scopes !== undefined ? { scopes: [...(entry.scopes as string[])] } : {}),
  };
}

/** Validates a mount added in code; a TypeError names the mount and the field. */
export function toMountConfig(input: MountInput): MountConfig {
  const problem = findProblem(input, CODE_KEYS, CODE_CHECKS, WHAT);
  if (problem) throw new TypeError(`Mount "${String((input as { name?: unknown } | undefined)?.name)}" is invalid: ${problem}.`);
  return withDefaults(input as unknown as Record<string, unknown>, { ...input.headers });
}

function resolveHeaders(entry: Record<string, unknown>, env: Env): Record<string, string> {
  const read = (variable: string) => {
    const value = env[variable];
    if (!value) throw new TypeError(`MCP_MOUNTS: mount ${String(entry.name)} names ${variable}, which is not set.`);
    return value;
  };
  const named = (entry.headersEnv ?? {}) as Record<string, string>;
  const headers = Object.fromEntries(Object.entries(named).map(([header, variable]) => [header.toLowerCase(), read(variable)]));
  if (typeof entry.tokenEnv === 'string') headers.authorization = `Bearer ${read(entry.tokenEnv)}`;
  return headers;
}

/** MCP_MOUNTS as resolved mounts (none when unset); a TypeError names the variable on bad configuration. */
export function readMounts(env: Env): MountConfig[] {
  if (!env.MCP_MOUNTS) return [];
  const json = parseJsonEnv('MCP_MOUNTS', env.MCP_MOUNTS, 'a JSON array of mount objects');
  if (!Array.isArray(json) || json.length === 0) throw new TypeError('MCP_MOUNTS must be a JSON array of mount objects.');
  const names = new Set<string>();
  return json.map((entry: unknown, index) => {
    // A secret written into MCP_MOUNTS would live in every copy of the variable; say how to name it instead.
    if (isRecord(entry) && ('headers' in entry || 'token' in entry)) {
      throw new TypeError(`MCP_MOUNTS: mount ${String(entry.name)} inlines credentials; name the variables that hold them with tokenEnv or headersEnv.`);
    }
    const problem = findProblem(entry, ENV_KEYS, ENV_CHECKS, WHAT);
    if (problem) throw new TypeError(`MCP_MOUNTS is invalid: ${index}.${problem}.`);
    const mount = entry as Record<string, unknown>;
    if (names.has(mount.name as string)) throw new TypeError(`MCP_MOUNTS: duplicate mount name "${String(mount.name)}".`);
    names.add(mount.name as string);
    return withDefaults(mount, resolveHeaders(mount, env));
  });
}

/** MCP_MOUNTS_WAIT_MS: how long a list waits for mounts still connecting (0 answers at once). */
export function readMountWait(env: Env): number {
  const raw = env.MCP_MOUNTS_WAIT_MS;
  if (raw === undefined || raw === '') return DEFAULT_WAIT_MS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new TypeError(`MCP_MOUNTS_WAIT_MS must be a non-negative integer of milliseconds, got "${raw}".`);
  }
  return value;
}
