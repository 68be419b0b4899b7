/**
 * A mounted server's offerings as registry entries, named `<mount>.<name>` (tools and prompts; the separator
 * is valid in SEP-986 tool names and absent from mount names, so a name maps back to one mount). Resource
 * URIs are kept as the server published them, so links in its tool results still resolve; their `name` is
 * namespaced like tools. Arguments are validated by the mounted server, not here.
 * Every entry is used with the mount's credentials, so every entry needs the mount's `scopes`
 * (lib/server/access.ts), whatever fields the mounted server published.
 */

import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import type { RequestContext } from '../server/context.js';
import { findHeaderParams, isToolName } from '../server/create-registry.js';
import type {
  CompiledTemplate, Completer, CompiledTool, PromptDefinition, Registry, ResourceDefinition,
} from '../server/registry.js';
import { MOUNT_SEPARATOR } from './config.js';
import type { MountListings } from './connect.js';
import type { TaskSupport } from '../protocol/tasks.js';
import { mountTasks } from './tasks.js';
import { forwardComplete, forwardPrompt, forwardRead, forwardToolCall, type MountLink } from './forward.js';

export interface MountCatalog {
  registry: Registry;
  /** Downstream tools left out because `<mount>.<name>` is not a valid tool name. */
  skipped: string[];
  /** Downstream resource URIs and templates left out because `reserved` (the app itself) serves them. */
  shadowed: string[];
}

export function buildCatalog(link: MountLink, listings: MountListings, reserved?: Registry): MountCatalog {
  const prefixed = (name: string) => `${link.name}${MOUNT_SEPARATOR}${name}`;
  const skipped: string[] = [];
  const taken = new Set([...(reserved?.resources.keys() ?? []), ...(reserved?.templates.map((t) => t.definition.uriTemplate) ?? [])]);
  const shadowed: string[] = [];
  const free = <T>(key: (item: T) => string) => (item: T) => {
    if (!taken.has(key(item))) return true;
    shadowed.push(key(item));
    return false;
  };
  const resources = listings.resources.filter(free((r) => r.uri));
  const templates = listings.templates.filter(free((t) => t.uriTemplate));
  const tools = new Map<string, CompiledTool>();
  for (const tool of listings.tools) {
    const name = prefixed(tool.name);
    if (isToolName(name)) tools.set(name, compileTool(link, name, tool));
    else skipped.push(tool.name);
  }
  return {
    registry: {
      tools,
      resources: new Map(resources.map((r) => [r.uri, resourceEntry(link, prefixed(r.name), r)])),
      templates: templates.map((t) => templateEntry(link, prefixed(t.name), t)),
      prompts: new Map(listings.prompts.map((p) => [prefixed(p.name), promptEntry(link, prefixed(p.name), p)])),
    },
    skipped,
    shadowed,
  };
}

function compileTool(link: MountLink, name: string, tool: Tool): CompiledTool {
  const remote = mountTasks(link, tool);
  const inputSchema = tool.inputSchema as Record<string, unknown>;
  // Execution hints are not copied: the legacy listing names a tool's task support from its definition (below).
  const listing = {
    name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema,
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
    ...(tool.icons !== undefined ? { icons: tool.icons } : {}),
    ...(tool._meta !== undefined ? { _meta: tool._meta } : {}),
  };
  return {
    definition: {
      name,
      description: tool.description ?? '',
      input: { jsonSchema: inputSchema },
      scopes: link.scopes,
      ...(remote ? { task: { support: tool.execution!.taskSupport as TaskSupport, remote } } : {}),
      run: (args: Record<string, unknown>, ctx) => forwardToolCall(link, tool, args, ctx),
    },
    listing,
    headerParams: findHeaderParams(inputSchema),
  };
}

function resourceEntry(link: MountLink, name: string, resource: Resource): ResourceDefinition {
  return { ...withoutUndefined(resource), name, scopes: link.scopes, read: (ctx: RequestContext) => forwardRead(link, resource.uri, ctx) } as ResourceDefinition;
}

/**
 * A downstream template may use any RFC 6570 level, so it is matched by its literal prefix (the text before
 * its first expression) and the mounted server resolves the rest.
 */
function templateEntry(link: MountLink, name: string, template: ResourceTemplate): CompiledTemplate {
  const prefix = template.uriTemplate.split('{', 1)[0]!;
  const ref = { type: 'ref/resource' as const, uri: template.uriTemplate };
  const definition = {
    ...withoutUndefined(template),
    name,
    scopes: link.scopes,
    complete: completers(link, ref, templateVariables(template.uriTemplate)),
    read: (uri: string, _variables: Record<string, string>, ctx: RequestContext) => forwardRead(link, uri, ctx),
  } as CompiledTemplate['definition'];
  return { definition, pattern: new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), variables: [] };
}

function promptEntry(link: MountLink, name: string, prompt: Prompt): PromptDefinition {
  const ref = { type: 'ref/prompt' as const, name: prompt.name };
  return {
    ...withoutUndefined(prompt),
    name,
    scopes: link.scopes,
    complete: completers(link, ref, (prompt.arguments ?? []).map((a) => a.name)),
    get: (args: Record<string, string>, ctx: RequestContext) => forwardPrompt(link, prompt.name, args, ctx),
  } as PromptDefinition;
}

/** Completion of each argument, asked of the mounted server under its own names. */
function completers(link: MountLink, ref: Parameters<typeof forwardComplete>[1], names: string[]): Record<string, Completer> {
  return Object.fromEntries(names.map((argument) => [
    argument,
    (value: string, context: Record<string, string>, ctx: RequestContext) => forwardComplete(link, ref, argument, value, context, ctx),
  ]));
}

/** The variable names of an RFC 6570 template: `{+path}`, `{?q,lang}` and `{id:3}` give path, q, lang and id. */
export function templateVariables(uriTemplate: string): string[] {
  return [...uriTemplate.matchAll(/\{([^}]*)\}/g)].flatMap(([, expression]) =>
    expression!.replace(/^[+#./;?&=,!@|]/, '').split(',').map((name) => name.replace(/(?::\d+|\*)$/, '').trim()).filter(Boolean));
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
