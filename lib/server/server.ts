/** The server's identity and settings, resolved once; handlers read it, never module state. */

import { SKILLS_EXTENSION } from '../protocol/skills.js';
import { LEGACY_TASKS_CAPABILITY, TASKS_EXTENSION } from '../protocol/tasks.js';
import { DEFAULT_TASK_SETTINGS, type TaskSettings } from '../tasks/settings.js';
import type { RequestContext } from './context.js';
import { createKeyring, type Keyring } from './keyring.js';
import type { CompiledTool, InputRequired, Registry, RegistrySource, ToolResult } from './registry.js';
import { createStateSigner, MIN_STATE_SECRET_LENGTH, type StateSigner } from './request-state.js';

export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
}

/** A method's handler: the request's params and context to its result; an McpError thrown is the JSON-RPC error. */
export type Handler = (server: Server, params: Record<string, unknown>, ctx: RequestContext) => unknown;

/** Handlers by method name. */
export type MethodTable = Readonly<Record<string, Handler>>;

/** A tools/call the core has checked (methods/tools.ts): the tool found and allowed, its arguments valid, its limit counted. */
export interface ToolCall {
  server: Server;
  tool: CompiledTool;
  /** The arguments as the tool's schema gives them; `args` as the client sent them. */
  parsed: unknown;
  args: Record<string, unknown>;
  params: Record<string, unknown>;
}

/** What tools/call answers: the tool's result, a request for input (modern wire), or a result of another type (a task). */
export type ToolOutcome = ToolResult | InputRequired | Record<string, unknown>;

export type RunTool = (call: ToolCall, ctx: RequestContext) => Promise<ToolOutcome>;

/**
 * A feature's way of running a call (as a task, past a reply deadline): it runs the calls it takes, and hands the
 * others to `next`, in the end the tool's own `run`.
 */
export type CallStrategy = (call: ToolCall, ctx: RequestContext, next: RunTool) => Promise<ToolOutcome>;

/**
 * What a feature (tasks, skills) adds to the MCP core the dispatcher serves: lib/app.ts installs the features, and
 * lib/server/ imports none of them (docs/architecture.md "The floor").
 */
export interface Feature {
  /** Its methods, beside the core's (dispatch.ts CORE_METHODS); a name answered twice stops start-up. */
  methods?: MethodTable;
  /** How it runs tools/call, outermost first; features' strategies apply in the order the features are given. */
  strategies?: readonly CallStrategy[];
}

export interface ServerOptions {
  registry: Registry;
  /** Definitions that change while the server runs (mounted MCP servers), after the registry's own. */
  sources?: RegistrySource[];
  info: ServerInfo;
  instructions?: string;
  /**
   * HMAC secret for MRTR `requestState` and the ids the server issues, shared by every instance of a deployment (MCP_STATE_SECRET). Absent,
   * a random key of this process signs, and tokens verify only on the instance that issued them.
   */
  stateSecret?: string;
  pageSize?: number;
  /**
   * Scopes a principal needs for every entry (tool, resource, template, prompt, skill) that names none (AUTH_SCOPES);
   * checked only when a principal exists (lib/server/access.ts).
   */
  defaultScopes?: string[];
  /** Caching hints on the modern wire (server/utilities/caching). */
  listTtlMs?: number;
  readTtlMs?: number;
  /** How long tasks live and how their instances beat (TASK_* variables); the defaults when absent. */
  tasks?: Partial<TaskSettings>;
  /** What the core is served with (lib/app.ts: tasks, skills). */
  features?: readonly Feature[];
}

export interface Server {
  registry: Registry;
  sources: readonly RegistrySource[];
  info: ServerInfo;
  instructions?: string;
  signer: StateSigner;
  /** MACs the ids the server issues and later trusts: sessions, conversations, requests to the client. */
  keyring: Keyring;
  pageSize: number;
  defaultScopes: string[];
  listTtlMs: number;
  readTtlMs: number;
  tasks: TaskSettings;
  /** The features' methods, which the dispatcher answers beside the core's. */
  methods: MethodTable;
  /** Runs a checked tools/call: the features' strategies around the tool's own `run`. */
  runTool: RunTool;
  capabilities: { legacy: Record<string, unknown>; modern: Record<string, unknown> };
}

export function createServer(options: ServerOptions): Server {
  if (options.stateSecret !== undefined && options.stateSecret.length < MIN_STATE_SECRET_LENGTH) {
    throw new TypeError(`stateSecret must be at least ${MIN_STATE_SECRET_LENGTH} characters.`);
  }
  const { registry } = options;
  const sources = options.sources ?? [];
  // What a source will hold is unknown until it loads, so its presence declares every kind.
  const dynamic = sources.length > 0;
  const hasResources = dynamic || registry.resources.size > 0 || registry.templates.length > 0;
  const hasPrompts = dynamic || registry.prompts.size > 0;
  // Tasks are offered when some tool can become one; a mounted server's may (its tasks are passed through).
  const hasTasks = dynamic || [...registry.tools.values()].some((tool) => tool.definition.task);
  const common = {
    ...(dynamic || registry.tools.size > 0 ? { tools: { listChanged: false } } : {}),
    ...(hasPrompts ? { prompts: { listChanged: false } } : {}),
    logging: {},
    completions: {},
  };
  // SEP-2640 §Capability Declaration, settings inline per SEP-2133; declaring it commits to skills/list and
  // skills/get, and directoryRead to resources/directory/read on every directory of the skills.
  const skills = registry.skills ? { [SKILLS_EXTENSION]: { directoryRead: true } } : undefined;
  // The tasks extension (SEP-2663) exists on the 2026-07-28 wire only; the legacy wire has `tasks` (SEP-1686).
  const modernExtensions = { ...skills, ...(hasTasks ? { [TASKS_EXTENSION]: {} } : {}) };
  return {
    registry,
    sources,
    info: options.info,
    instructions: options.instructions,
    signer: createStateSigner(options.stateSecret),
    keyring: createKeyring(options.stateSecret),
    pageSize: options.pageSize ?? 100,
    defaultScopes: options.defaultScopes ?? [],
    listTtlMs: options.listTtlMs ?? 60_000,
    readTtlMs: options.readTtlMs ?? 0,
    tasks: { ...DEFAULT_TASK_SETTINGS, ...options.tasks },
    methods: joinMethods((options.features ?? []).map((feature) => feature.methods ?? {})),
    runTool: (options.features ?? []).flatMap((feature) => feature.strategies ?? [])
      .reduceRight<RunTool>((next, strategy) => (call, ctx) => strategy(call, ctx, next), runPlain),
    capabilities: {
      // No `subscribe`: a stateless server has no stream to send notifications/resources/updated on, and a
      // capability is a promise (2025-11-25 server/resources §Capabilities). resources/subscribe stays a no-op
      // for clients that call it anyway.
      legacy: {
        ...common,
        ...(hasResources ? { resources: { listChanged: false } } : {}),
        ...(hasTasks ? { tasks: LEGACY_TASKS_CAPABILITY } : {}),
        ...(skills ? { extensions: skills } : {}),
      },
      modern: {
        ...common,
        ...(hasResources ? { resources: {} } : {}),
        ...(Object.keys(modernExtensions).length > 0 ? { extensions: modernExtensions } : {}),
      },
    },
  };
}

/** A call without a feature's strategy: the tool's own run, in the request's context. */
async function runPlain(call: ToolCall, ctx: RequestContext): Promise<ToolOutcome> {
  return call.tool.definition.run(call.parsed, ctx);
}

/** Method tables joined into one; a method two of them answer is a TypeError, since one would silently hide the other. */
export function joinMethods(tables: readonly MethodTable[]): MethodTable {
  const joined: Record<string, Handler> = {};
  for (const table of tables) {
    for (const [method, handler] of Object.entries(table)) {
      if (Object.hasOwn(joined, method)) throw new TypeError(`Method ${method} is answered twice: by the core or a feature, and by another feature.`);
      joined[method] = handler;
    }
  }
  return joined;
}
