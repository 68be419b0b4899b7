/**
 * What a server offers: tools, resources, resource templates and prompts, defined once, and the registry they are
 * compiled into (create-registry.ts). A tool's zod schema is both its validator and its published JSON Schema.
 * Only types come from zod here: zod loads with the tools that use it.
 */

import type * as z from 'zod';
import type { TaskSupport } from '../protocol/tasks.js';
import type { RequestContext } from './context.js';
import type { QuickCheck } from './quick-args.js';

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export type Content = Record<string, unknown> & { type: string };

export interface ToolResult {
  content: Content[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** A modern-wire answer asking the client for input before the request can finish (MRTR, SEP-2322). */
export interface InputRequired {
  readonly inputRequired: true;
  inputRequests?: Record<string, { method: string; params: Record<string, unknown> }>;
  /** Application state the client carries back; we sign it and bind it to the caller and the request. */
  state?: unknown;
}

export function inputRequired(
  inputRequests: InputRequired['inputRequests'],
  state?: unknown,
): InputRequired {
  return { inputRequired: true, inputRequests, state };
}

export function isInputRequired(value: unknown): value is InputRequired {
  return typeof value === 'object' && value !== null && (value as InputRequired).inputRequired === true;
}

/**
 * A result of a type an extension adds to a method's results (x402's `payment_required`, which the `org.x402/payment`
 * extension adds to tools/call, resources/read and prompts/get): sent as it is, on the 2026-07-28 wire only, to a
 * client that declared the extension on the request.
 */
export interface OtherResult {
  resultType: string;
  [field: string]: unknown;
}

export const isOtherResult = (value: unknown): value is OtherResult =>
  typeof value === 'object' && value !== null && typeof (value as OtherResult).resultType === 'string';

/** A JSON Schema published verbatim, for tools whose schema zod cannot express; arguments are not validated. */
export interface RawJsonSchema {
  jsonSchema: Record<string, unknown>;
}

/**
 * A zod schema kept off the cold path: published as `jsonSchema`, which must be what zod computes for it (keep a
 * test that says so), and loaded on the first call that validates arguments.
 */
export interface LazySchema<T extends z.ZodType = z.ZodType> {
  jsonSchema: Record<string, unknown>;
  load(): Promise<T>;
  /** What the schema would give the arguments it certainly accepts, checked without loading it (quick-args.ts). */
  quick?: QuickCheck;
}

/**
 * Whether a call may become a task (docs/tasks.md): `optional` or `required`. On the modern wire a call that has not
 * answered after `afterMs` (default 0: at once) becomes one; on the legacy wire the client asks. The tasks feature
 * adds how its tasks run to this interface by declaration merging (lib/tasks/tool-task.ts: `remote`, `deadline`), so
 * the core names no type of it.
 */
export interface ToolTask<Args = unknown> {
  support: TaskSupport;
  afterMs?: number;
}

export interface ToolDefinition<Input extends z.ZodType = z.ZodType> {
  name: string;
  title?: string;
  description: string;
  input?: Input | RawJsonSchema | LazySchema<Input>;
  output?: z.ZodType | RawJsonSchema;
  annotations?: Record<string, unknown>;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** OAuth scopes a caller needs to see and call this tool; absent means the server's default (lib/server/access.ts). */
  scopes?: string[];
  /** Client capabilities the tool cannot run without (modern wire: -32021 when undeclared). */
  requiredClientCapabilities?: Record<string, Record<string, unknown>>;
  /** Whether a call may become a task, and how (ToolTask); absent: never. */
  task?: ToolTask<z.output<Input>>;
  /**
   * What answers a call before it runs or becomes a task, when something must come first (a paid tool's
   * `payment_required` for a call that carries no payment); undefined to run it. Read after the arguments are valid.
   */
  precheck?(args: z.output<Input>, ctx: RequestContext): OtherResult | undefined | Promise<OtherResult | undefined>;
  run(args: z.output<Input>, ctx: RequestContext): RunOutcome | Promise<RunOutcome>;
}

/** What a tool's run answers: its result, a request for input (modern wire), or a result of an extension's type. */
export type RunOutcome = ToolResult | InputRequired | OtherResult;

export interface ResourceContent {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  _meta?: Record<string, unknown>;
}

/**
 * What a read answers: its contents; or a whole result, the contents with `_meta` (a paid read's receipt), or a
 * result of an extension's type (OtherResult).
 */
export type ReadOutcome = ResourceContent[] | { contents: ResourceContent[]; _meta?: Record<string, unknown> } | OtherResult;

export interface ResourceDefinition {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** OAuth scopes a caller needs to see and read this resource; absent means the server's default (lib/server/access.ts). */
  scopes?: string[];
  read(ctx: RequestContext): ReadOutcome | Promise<ReadOutcome>;
}

/** Values for an argument being typed (`value`), given the arguments already chosen (`context`). */
export type Completer = (value: string, context: Record<string, string>, ctx: RequestContext) => string[] | Promise<string[]>;

export interface ResourceTemplateDefinition {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: Icon[];
  /** OAuth scopes a caller needs to see, read and complete this template; absent means the server's default. */
  scopes?: string[];
  _meta?: Record<string, unknown>;
  complete?: Record<string, Completer>;
  read(uri: string, variables: Record<string, string>, ctx: RequestContext): ReadOutcome | Promise<ReadOutcome>;
}

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

export interface PromptResult {
  description?: string;
  messages: Array<{ role: 'user' | 'assistant'; content: Content }>;
  _meta?: Record<string, unknown>;
}

export interface PromptDefinition {
  name: string;
  title?: string;
  description: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** OAuth scopes a caller needs to see, get and complete this prompt; absent means the server's default. */
  scopes?: string[];
  complete?: Record<string, Completer>;
  get(args: Record<string, string>, ctx: RequestContext): PromptOutcome | Promise<PromptOutcome>;
}

/** What a prompts/get answers: the prompt, a request for input (modern wire), or a result of an extension's type. */
export type PromptOutcome = PromptResult | InputRequired | OtherResult;

export interface RegistryDefinition {
  /** Who defines these entries (e.g. "tools/index.ts"), named when a name is defined twice. */
  origin?: string;
  tools?: ToolDefinition<any>[];
  resources?: ResourceDefinition[];
  resourceTemplates?: ResourceTemplateDefinition[];
  prompts?: PromptDefinition[];
  // Features add the kinds of entry they serve by declaration merging: lib/skills/feature.ts adds `skills`.
}

/** A tool as compiled for serving: its listing is computed once. */
export interface CompiledTool {
  definition: ToolDefinition<any>;
  listing: Record<string, unknown>;
  /** Argument names mirrored into `Mcp-Param-*` headers (x-mcp-header, SEP-2243), by header suffix. */
  headerParams: Array<{ argument: string; header: string }>;
  /** Validates arguments against the tool's zod schema; absent when arguments are not validated. */
  validate?(args: Record<string, unknown>): z.ZodSafeParseResult<unknown> | Promise<z.ZodSafeParseResult<unknown>>;
}

export interface CompiledTemplate {
  definition: ResourceTemplateDefinition;
  pattern: RegExp;
  variables: string[];
}

export interface Registry {
  tools: Map<string, CompiledTool>;
  resources: Map<string, ResourceDefinition>;
  templates: CompiledTemplate[];
  prompts: Map<string, PromptDefinition>;
  /** Set by a source while some of its definitions are loading or unavailable: lists from it are not cached. */
  incomplete?: boolean;
}

/**
 * Definitions that change while the server runs (mounted MCP servers). The list handlers consult every
 * source; the call, read and get handlers consult them only for names the static registry does not hold.
 */
export interface RegistrySource {
  /** The definitions to serve now; may wait, bounded, for ones still loading. Never rejects. */
  read(ctx: RequestContext): Promise<Registry>;
}

/** Answers from the static registry and then each source's, in precedence order; no await without sources. */
export function withRegistries<T>(
  registry: Registry,
  sources: readonly RegistrySource[],
  ctx: RequestContext,
  answer: (registries: Registry[]) => T,
): T | Promise<T> {
  if (sources.length === 0) return answer([registry]);
  return Promise.all(sources.map((source) => source.read(ctx))).then((read) => answer([registry, ...read]));
}

/** A list's caching hint: none (0, immediately stale) when any registry is incomplete, so no client keeps a partial list. */
export function listTtl(ttlMs: number, registries: Registry[]): number {
  return registries.some((registry) => registry.incomplete) ? 0 : ttlMs;
}

/** One kind of entry across registries; on a key used twice the earlier registry wins. */
export function mergeEntries<T>(registries: Registry[], pick: (registry: Registry) => Map<string, T>): T[] {
  if (registries.length === 1) return [...pick(registries[0]!).values()];
  const merged = new Map<string, T>();
  for (const registry of registries) {
    for (const [key, entry] of pick(registry)) if (!merged.has(key)) merged.set(key, entry);
  }
  return [...merged.values()];
}

/** The first entry `pick` finds in a source, or undefined at once when there are no sources. */
export async function findInSources<T>(
  sources: readonly RegistrySource[],
  ctx: RequestContext,
  pick: (registry: Registry) => T | undefined,
): Promise<T | undefined> {
  if (sources.length === 0) return undefined;
  for (const registry of await Promise.all(sources.map((source) => source.read(ctx)))) {
    const found = pick(registry);
    if (found !== undefined) return found;
  }
  return undefined;
}
