/** The server's identity and settings, resolved once; handlers read it, never module state. */

import { isObject } from '../protocol/jsonrpc.js';
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
  /**
   * What it declares to clients on each wire given what the server serves, merged into the core's capabilities (an
   * object both name, such as `extensions`, holds the entries of both); undefined when it declares nothing.
   */
  declare?(served: Served): { legacy?: Capabilities; modern?: Capabilities } | undefined;
}

export type Capabilities = Record<string, unknown>;

/** What a server serves, as a feature's declaration reads it: `dynamic` when sources (mounts) may add anything. */
export interface Served {
  registry: Registry;
  dynamic: boolean;
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
  /** The features' methods, which the dispatcher answers beside the core's. */
  methods: MethodTable;
  /** Runs a checked tools/call: the features' strategies around the tool's own `run`. */
  runTool: RunTool;
  capabilities: { legacy: Capabilities; modern: Capabilities };
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
  const common = {
    ...(dynamic || registry.tools.size > 0 ? { tools: { listChanged: false } } : {}),
    ...(hasPrompts ? { prompts: { listChanged: false } } : {}),
    logging: {},
    completions: {},
  };
  const features = options.features ?? [];
  const declared = features.map((feature) => feature.declare?.({ registry, dynamic }));
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
    methods: joinMethods(features.map((feature) => feature.methods ?? {})),
    runTool: features.flatMap((feature) => feature.strategies ?? [])
      .reduceRight<RunTool>((next, strategy) => (call, ctx) => strategy(call, ctx, next), runPlain),
    capabilities: {
      // No `subscribe`: a stateless server has no stream to send notifications/resources/updated on, and a
      // capability is a promise (2025-11-25 server/resources §Capabilities). resources/subscribe stays a no-op
      // for clients that call it anyway.
      legacy: withDeclared({ ...common, ...(hasResources ? { resources: { listChanged: false } } : {}) }, declared.map((d) => d?.legacy)),
      modern: withDeclared({ ...common, ...(hasResources ? { resources: {} } : {}) }, declared.map((d) => d?.modern)),
    },
  };
}

/** The core's capabilities with the features' declarations: an object named by more than one holds the entries of each. */
function withDeclared(core: Capabilities, declared: ReadonlyArray<Capabilities | undefined>): Capabilities {
  const merged: Capabilities = { ...core };
  for (const [name, value] of declared.flatMap((d) => Object.entries(d ?? {}))) {
    const held = merged[name];
    merged[name] = isObject(held) && isObject(value) ? { ...held, ...value } : value;
  }
  return merged;
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
