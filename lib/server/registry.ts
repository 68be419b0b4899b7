/**
 * What a server offers: tools, resources, resource templates and prompts, defined once.
 * A tool's zod schema is both its validator and its published JSON Schema (2020-12), computed once here, or
 * ahead of time for a LazySchema. Only types come from zod here: zod loads with the tools that use it.
 */

import type * as z from 'zod';
import type { TaskStatus, TaskSupport } from '../protocol/tasks.js';
import type { Slots } from '../limits/slots.js';
import type { RequestContext } from './context.js';
import type { QuickCheck } from './quick-args.js';
import { charClass } from '../chars.js';
import { compileSkills, fileChild, type SkillCatalog, type SkillDefinition } from '../skills/skill.js';

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

/** The task of a call as the server that runs it reports it. */
export interface RemoteTask {
  status: TaskStatus;
  statusMessage?: string;
}

/** A tool whose own server keeps its tasks (a mounted server's): start one there, follow it by its id (lib/tasks/remote.ts). */
export interface RemoteTasks {
  /** Starts the call as a task there, asking it to keep the task `ttlMs`; its task id there. */
  start(args: Record<string, unknown>, ttlMs: number, ctx: RequestContext): Promise<string>;
  get(taskId: string, ctx: RequestContext): Promise<RemoteTask>;
  /** Waits for the end there and answers what the call answered; a JSON-RPC error is thrown as an McpError. */
  result(taskId: string, ctx: RequestContext): Promise<Record<string, unknown>>;
  cancel(taskId: string, ctx: RequestContext): Promise<void>;
}

/** A run that outlived its call, as the calls that answer about it see it (lib/tasks/on-behalf.ts). */
export interface RunView {
  /** What a later call names it by: the id of the task it runs as, bound to its caller. */
  handle: string;
  status: TaskStatus;
  /** What the run reported (context.ts RunReport): its facts, the reply's text so far (the last part of a long one), its latest status line. */
  facts: Record<string, string>;
  text: string;
  note?: string;
  /** Its reply is held until the run ends (a paid call, context.ts withReplyHeld): no text or status line is kept. */
  withheld?: true;
  /** How long it has run, or ran. */
  elapsedMs: number;
  /** What the call answers, once completed; the JSON-RPC error, once failed. */
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** The run a call collects (or stops) instead of starting one; or, when it names none its caller may collect, the answer. */
export type Collection = { handle: string; owner?: string; cancel?: boolean } | { refused: ToolResult };

/**
 * A reply deadline for callers that did not ask for a task (lib/tasks/on-behalf.ts, docs/agents.md): a call still
 * running after `ms` answers with what its work has so far, and the work goes on as a task the server started on the
 * caller's behalf, which later calls of the same tool collect.
 */
export interface ReplyDeadline<Args = unknown> {
  /** How long a call may run before it answers (AGENT_REPLY_DEADLINE_MS); a collecting call waits as long. */
  ms: number;
  /** How long such a run, its reply included, is kept after its last change (AGENT_BACKGROUND_TTL_MS). */
  ttlMs: number;
  /** Runs that outlived their call, per caller on this instance (AGENT_MAX_BACKGROUND_RUNS). */
  runs: Slots;
  /**
   * The run this call collects or stops, when it starts none; undefined, without a promise, when it starts one (the
   * usual call, which should not wait a turn of the event loop to learn it).
   */
  collects(args: Args, ctx: RequestContext): Promise<Collection | undefined> | undefined;
  /**
   * Files a run that has just outlived its call where a collecting call will look, before the call answers, and takes
   * what the run must hold until it ends; what it returns is called once the run's work is over.
   */
  started(run: { handle: string; owner: string; facts: Record<string, string> }, ctx: RequestContext): Promise<(() => Promise<void>) | undefined>;
  /**
   * The answer about a run as it stands; undefined: the caller has no such run (never made, or expired). `stopped`:
   * this call's `cancel` ended it, a success (a run found already ended is not).
   */
  answer(run: RunView | undefined, ctx: RequestContext, stopped?: boolean): ToolResult;
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
  /**
   * Whether a call may become a task (docs/tasks.md): `optional` or `required` (absent: never). On the modern wire
   * a call that has not answered after `afterMs` (default 0: at once) becomes one; on the legacy wire the client asks.
   * `remote`: the tool's own server keeps the task (a mounted server's); ours wraps it. `deadline`: for a caller that
   * did not ask for a task, the server starts one on its behalf when the call outlives the deadline.
   */
  task?: { support: TaskSupport; afterMs?: number; remote?: RemoteTasks; deadline?: ReplyDeadline<z.output<Input>> };
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
  /** Skills (SEP-2640); their files are served as resources too. */
  skills?: SkillDefinition[];
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
  /** The skills it serves; absent for registries of mounted servers, whose skill files are plain resources. */
  skills?: SkillCatalog;
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
  const skills = compileSkills(definitions.flatMap((d) => d.skills ?? []));
  const uriTemplate = (t: ResourceTemplateDefinition) => t.uriTemplate;
  uniqueMap(definitions, (d) => d.resourceTemplates, uriTemplate, 'resource template');
  // A skill's files are resources too: their skill:// URIs must not collide with anything else served.
  const withSkillFiles = [...definitions, { origin: 'the skills', resources: skillResources(skills) }];
  return {
    tools: uniqueMap(compiled, (d) => d.tools, (t) => t.definition.name, 'tool'),
    resources: uniqueMap(withSkillFiles, (d) => d.resources, (r) => r.uri, 'resource'),
    templates: definitions.flatMap((d) => d.resourceTemplates ?? []).map(compileTemplate),
    prompts: uniqueMap(definitions, (d) => d.prompts, (p) => p.name, 'prompt'),
    ...(skills.skills.length > 0 ? { skills } : {}),
  };
}

/** A token's scopes are space-free names (RFC 6749 §3.3): `scopes` in any other shape would never match one. */
function checkScopes(definition: RegistryDefinition): void {
  const entries: Array<[string, unknown]> = [
    ...(definition.tools ?? []).map((t): [string, unknown] => [`Tool "${t.name}"`, t.scopes]),
    ...(definition.resources ?? []).map((r): [string, unknown] => [`Resource "${r.uri}"`, r.scopes]),
    ...(definition.resourceTemplates ?? []).map((t): [string, unknown] => [`Resource template "${t.uriTemplate}"`, t.scopes]),
    ...(definition.prompts ?? []).map((p): [string, unknown] => [`Prompt "${p.name}"`, p.scopes]),
    ...(definition.skills ?? []).map((k): [string, unknown] => [`Skill "${k.path}"`, k.scopes]),
  ];
  const isScopeList = (scopes: unknown) => Array.isArray(scopes) && scopes.every((s) => typeof s === 'string' && /^\S+$/.test(s));
  const bad = entries.find(([, scopes]) => scopes !== undefined && !isScopeList(scopes));
  if (bad) throw new TypeError(`${bad[0]}: scopes must be an array of scope names (no spaces), or absent for the server's default.`);
}

/** Every skill file as a resource, readable by `resources/read` whatever the client knows of skills. */
function skillResources(catalog: SkillCatalog): ResourceDefinition[] {
  return catalog.skills.flatMap((skill) => skill.files.map((file) => {
    const { uri, mimeType, text } = file;
    const listed = fileChild(skill, file, uri.slice(skill.root.length + 1));
    return { ...listed, scopes: skill.scopes, read: () => [{ uri, mimeType, text }] };
  }));
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
