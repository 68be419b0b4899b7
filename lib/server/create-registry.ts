/**
 * Definitions compiled for serving (registry.ts says what they are): names and scopes checked, a tool's published
 * JSON Schema (2020-12) computed once from its zod schema, or taken as written ahead of time for a LazySchema, and
 * URI templates made patterns. Misuse stops start-up with a TypeError naming the culprit.
 */

import type * as z from 'zod';
import { charClass } from '../chars.js';
import type {
  CompiledTemplate, CompiledTool, LazySchema, RawJsonSchema, Registry, RegistryDefinition, ResourceTemplateDefinition,
  ToolDefinition,
} from './registry.js';

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
