/**
 * What a server offers: tools, resources, resource templates and prompts, defined once.
 * A tool's zod schema is both its validator and its published JSON Schema (2020-12), computed once here.
 */

import * as z from 'zod';
import type { RequestContext } from './context.js';

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

export interface ToolDefinition<Input extends z.ZodType = z.ZodType> {
  name: string;
  title?: string;
  description: string;
  input?: Input | RawJsonSchema;
  output?: z.ZodType;
  annotations?: Record<string, unknown>;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** Client capabilities the tool cannot run without (modern wire: -32021 when undeclared). */
  requiredClientCapabilities?: Record<string, Record<string, unknown>>;
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
  read(ctx: RequestContext): ResourceContent[] | Promise<ResourceContent[]>;
}

export type Completer = (value: string, context: Record<string, string>) => string[] | Promise<string[]>;

export interface ResourceTemplateDefinition {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: Icon[];
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
  complete?: Record<string, Completer>;
  get(args: Record<string, string>, ctx: RequestContext): PromptResult | InputRequired | Promise<PromptResult | InputRequired>;
}

export interface RegistryDefinition {
  tools?: ToolDefinition<any>[];
  resources?: ResourceDefinition[];
  resourceTemplates?: ResourceTemplateDefinition[];
  prompts?: PromptDefinition[];
}

/** A tool as compiled for serving: its listing is computed once. */
export interface CompiledTool {
  definition: ToolDefinition<any>;
  listing: Record<string, unknown>;
  /** Argument names mirrored into `Mcp-Param-*` headers (x-mcp-header, SEP-2243), by header suffix. */
  headerParams: Array<{ argument: string; header: string }>;
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
}

/** Tool names per SEP-986 (2025-11-25 server/tools §Tool Names). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

const EMPTY_INPUT_SCHEMA = { type: 'object', additionalProperties: false } as const;

function isRawSchema(input: unknown): input is RawJsonSchema {
  return typeof input === 'object' && input !== null && 'jsonSchema' in input;
}

export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;
}

function compileTool(tool: ToolDefinition<any>): CompiledTool {
  if (!TOOL_NAME.test(tool.name)) {
    throw new TypeError(`Tool name "${tool.name}" must be 1-128 characters of A-Z a-z 0-9 _ - . (SEP-986).`);
  }
  const inputSchema = tool.input === undefined
    ? EMPTY_INPUT_SCHEMA
    : isRawSchema(tool.input) ? tool.input.jsonSchema : toJsonSchema(tool.input, 'input');
  const listing: Record<string, unknown> = {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema,
    ...(tool.output ? { outputSchema: toJsonSchema(tool.output, 'output') } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    ...(tool.icons ? { icons: tool.icons } : {}),
    ...(tool._meta ? { _meta: tool._meta } : {}),
  };
  return { definition: tool, listing, headerParams: findHeaderParams(inputSchema) };
}

function findHeaderParams(schema: Record<string, unknown>): CompiledTool['headerParams'] {
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

function uniqueMap<T>(items: T[], key: (item: T) => string, kind: string): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) {
    if (map.has(key(item))) throw new TypeError(`Duplicate ${kind} "${key(item)}".`);
    map.set(key(item), item);
  }
  return map;
}

/** Compiles definitions; misuse (bad names, duplicates) throws at start-up, naming the culprit. */
export function createRegistry(...definitions: RegistryDefinition[]): Registry {
  const tools = definitions.flatMap((d) => d.tools ?? []).map(compileTool);
  return {
    tools: uniqueMap(tools, (t) => t.definition.name, 'tool'),
    resources: uniqueMap(definitions.flatMap((d) => d.resources ?? []), (r) => r.uri, 'resource'),
    templates: definitions.flatMap((d) => d.resourceTemplates ?? []).map(compileTemplate),
    prompts: uniqueMap(definitions.flatMap((d) => d.prompts ?? []), (p) => p.name, 'prompt'),
  };
}
