/**
 * What a server offers: tools, resources, resource templates and prompts, defined once.
 * A tool's zod schema is both its validator and its published JSON Schema (2020-12), computed once here, or
 * ahead of time for a LazySchema. Only types come from zod here: zod loads with the tools that use it.
 */

import type * as z from 'zod';
import type { TaskSupport } from '../protocol/tasks.js';
import type { RequestContext } from './context.js';
import type { QuickCheck } from './quick-args.js';
import { charClass } from '../chars.js';

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
  run(args: z.output<Input>, ctx: RequestContext): ToolResult | InputRequired | Promise<ToolResult | InputRequired>;
}

export interface ResourceContent {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  _meta?: Record<string, unknown>;
}

export interface ResourceDefinition {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: Icon[];
  /** OAuth scopes a caller needs to see and read this resource; absent means the server's default (lib/server/access.ts). */
  scopes?: string[];
  read(ctx: RequestContext): ResourceContent[] | Promise<ResourceContent[]>;
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
  complete?: Record<string, Completer>;
  read(uri: string, variables: Record<string, string>, ctx: RequestContext): ResourceContent[] | Promise<ResourceContent[]>;
}

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

export interface PromptResult {
  description?: string;
  messages: Array<{ role: 'user' | 'assistant'; content: Content }>;
}

export interface PromptDefinition {
  name: string;
  title?: string;
  description: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  /** OAuth scopes a caller needs to see, get and complete this prompt; absent means the server's default. */
  scopes?: string[];
  complete?: Record<string, Completer>;
  get(args: Record<string, string>, ctx: RequestContext): PromptResult | InputRequired | Promise<PromptResult | InputRequired>;
}

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

const TOOL_NAME_CHARS = charClass('A-Za-z0-9_.-');

/** A tool name per SEP-986 (2025-11-25 server/tools §Tool Names): 1-128 of A-Z a-z 0-9 _ - . */
export function isToolName(name: string): boolean {
  return name.length >= 1 && name.length <= 128 && TOOL_NAME_CHARS.all(name);
}

const EMPTY_INPUT_SCHEMA = { type: 'object', additionalProperties: false } as const;

/** True for a published JSON Schema (raw or lazy), false for a zod schema. */
function isPublished(schema: unknown): schema is RawJsonSchema | LazySchema {
  return typeof schema === 'object' && schema !== null && 'jsonSchema' in schema;
}

export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  return schema.toJSONSchema({ target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;
}

function validatorOf(input: ToolDefinition['input']): CompiledTool['validate'] {
  if (input === undefined) return undefined;
  if (!isPublished(input)) return (args) => input.safeParse(args);
  if (!('load' in input)) return undefined;
  let schema: z.ZodType | undefined;
  const { quick } = input;
  return (args) => {
    const data = quick?.(args);
    if (data) return { success: true, data };
    // A promise only until the schema has loaded: after that, a call's arguments are checked without a wait.
    return schema ? schema.safeParse(args) : input.load().then((loaded) => (schema = loaded).safeParse(args));
  };
}

const SENT_AS = { input: 'arguments', output: 'structured result' } as const;

/**
 * The JSON Schema a tool publishes for its input or output. MCP sends both as one object (server/tools: an
 * `inputSchema` or `outputSchema` is of `type: "object"`), so anything else, or a schema zod did not make, is a
 * TypeError naming the tool: it stops start-up rather than reach a client.
 */
function publishedSchema(tool: ToolDefinition<any>, io: 'input' | 'output'): Record<string, unknown> {
  const schema: unknown = tool[io];
  if (!isPublished(schema) && typeof (schema as z.ZodType | undefined)?.toJSONSchema !== 'function') {
    throw new TypeError(`Tool "${tool.name}": its ${io} must be a zod schema (import * as z from 'zod'; ${io}: z.object({ … })).`);
  }
  const json = isPublished(schema) ? schema.jsonSchema : toJsonSchema(schema as z.ZodType, io);
  if (json.type !== 'object') {
    const got = typeof json.type === 'string' ? `type "${json.type}"` : 'a schema without type "object"';
    throw new TypeError(`Tool "${tool.name}": its ${io} must be an object schema, z.object({ … }), not ${got}: MCP sends a tool's ${SENT_AS[io]} as one object.`);
  }
  return json;
}

function compileTool(tool: ToolDefinition<any>): CompiledTool {
  if (!isToolName(tool.name)) {
    throw new TypeError(`Tool name "${tool.name}" must be 1-128 characters of A-Z a-z 0-9 _ - . (SEP-986).`);
  }
  const inputSchema = tool.input === undefined ? EMPTY_INPUT_SCHEMA : publishedSchema(tool, 'input');
  const listing: Record<string, unknown> = {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema,
    ...(tool.output ? { outputSchema: publishedSchema(tool, 'output') } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    ...(tool.icons ? { icons: tool.icons } : {}),
    ...(tool._meta ? { _meta: tool._meta } : {}),
  };
  return { definition: tool, listing, headerParams: findHeaderParams(inputSchema), validate: validatorOf(tool.input) };
}

/** Arguments a tool's input schema mirrors into `Mcp-Param-*` headers (also used for tools compiled elsewhere). */
export function findHeaderParams(schema: Record<string, unknown>): CompiledTool['headerParams'] {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (!properties) return [];
  return Object.entries(properties)
    .filter(([, property]) => typeof property?.['x-mcp-header'] === 'string')
    .map(([argument, property]) => ({ argument, header: String(property['x-mcp-header']).toLowerCase() }));
}

/** Level-1 URI templates (RFC 6570 `{var}`) become anchored patterns; a variable never spans a `/`. */
function compileTemplate(definition: ResourceTemplateDefinition): CompiledTemplate {
  const variables: string[] = [];
  const source = definition.uriTemplate.split(/(\{[^}]+\})/).map((part) => {
    const variable = /^\{([^}]+)\}$/.exec(part);
    if (!variable) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    variables.push(variable[1]!);
    return '([^/]+)';
  }).join('');
  return { definition, pattern: new RegExp(`^${source}$`), variables };
}

export function matchTemplate(template: CompiledTemplate, uri: string): Record<string, string> | undefined {
  const match = template.pattern.exec(uri);
  if (!match) return undefined;
  return Object.fromEntries(template.variables.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
}

/** Entries by key; a key defined twice throws a TypeError naming both definers. */
function uniqueMap<D extends { origin?: string }, T>(definitions: D[], items: (d: D) => T[] | undefined, key: (item: T) => string, kind: string): Map<string, T> {
  const map = new Map<string, T>();
  const origins = new Map<string, string>();
  for (const definition of definitions) {
    const origin = definition.origin ?? 'the app';
    for (const item of items(definition) ?? []) {
      const name = key(item);
      const first = origins.get(name);
      if (first !== undefined) {
        throw new TypeError(`Duplicate ${kind} "${name}": ${first === origin ? `defined twice by ${origin}` : `defined by ${first} and by ${origin}`}.`);
      }
      origins.set(name, origin);
      map.set(name, item);
    }
  }
  return map;
}

/** Compiles definitions; misuse (bad names, duplicates) throws at start-up, naming the culprit. */
export function createRegistry(...definitions: RegistryDefinition[]): Registry {
  definitions.forEach(checkScopes);
  const compiled = definitions.map((d) => ({ origin: d.origin, tools: d.tools?.map(compileTool) }));
  const uriTemplate = (t: ResourceTemplateDefinition) => t.uriTemplate;
  uniqueMap(definitions, (d) => d.resourceTemplates, uriTemplate, 'resource template');
  return {
    tools: uniqueMap(compiled, (d) => d.tools, (t) => t.definition.name, 'tool'),
    resources: uniqueMap(definitions, (d) => d.resources, (r) => r.uri, 'resource'),
    templates: definitions.flatMap((d) => d.resourceTemplates ?? []).map(compileTemplate),
    prompts: uniqueMap(definitions, (d) => d.prompts, (p) => p.name, 'prompt'),
  };
}

function checkScopes(definition: RegistryDefinition): void {
  checkScopeLists([
    ...(definition.tools ?? []).map((t): [string, unknown] => [`Tool "${t.name}"`, t.scopes]),
    ...(definition.resources ?? []).map((r): [string, unknown] => [`Resource "${r.uri}"`, r.scopes]),
    ...(definition.resourceTemplates ?? []).map((t): [string, unknown] => [`Resource template "${t.uriTemplate}"`, t.scopes]),
    ...(definition.prompts ?? []).map((p): [string, unknown] => [`Prompt "${p.name}"`, p.scopes]),
  ]);
}

/**
 * Entries' `scopes` by the entry's name: a token's scopes are space-free names (RFC 6749 §3.3), so `scopes` in any
 * other shape would never match one; the first such is a TypeError naming its entry.
 */
export function checkScopeLists(entries: ReadonlyArray<[what: string, scopes: unknown]>): void {
  const isScopeList = (scopes: unknown) => Array.isArray(scopes) && scopes.every((s) => typeof s === 'string' && /^\S+$/.test(s));
  const bad = entries.find(([, scopes]) => scopes !== undefined && !isScopeList(scopes));
  if (bad) throw new TypeError(`${bad[0]}: scopes must be an array of scope names (no spaces), or absent for the server's default.`);
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
