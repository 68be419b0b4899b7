/**
 * resources/list, resources/templates/list, resources/read and the legacy subscribe pair.
 * A missing resource is -32002 on the legacy wire and -32602 with `data.uri` on the modern one (SEP-2164).
 */

import { INVALID_PARAMS, McpError, RESOURCE_NOT_FOUND_LEGACY } from '../../protocol/errors.js';
import { mayUse, requireAccess, type Scoped } from '../access.js';
import type { RequestContext } from '../context.js';
import { paginate } from '../pagination.js';
import { matchTemplate } from '../create-registry.js';
import {
  findInSources, isOtherResult, listTtl, mergeEntries, withRegistries, type ReadOutcome, type Registry,
} from '../registry.js';
import type { Server } from '../server.js';
import { cachedListPage } from '../list-cache.js';
import { cacheHints } from './lifecycle.js';

/** An entry as listed: without its handlers or the scopes it needs. */
function listing<T extends object>(item: T & { read?: unknown; complete?: unknown; scopes?: unknown }) {
  const { read: _read, complete: _complete, scopes: _scopes, ...rest } = item;
  return rest;
}

export function listResources(server: Server, params: Record<string, unknown>, ctx: RequestContext) {
  return withRegistries(server.registry, server.sources, ctx, (registries) => cachedListPage(server, registries, params, ctx, () => {
    const all = mergeEntries(registries, (registry) => registry.resources)
      .filter((resource) => mayUse(server, resource, ctx))
      .map(listing);
    const { page, nextCursor } = paginate(all, params.cursor, server.pageSize);
    return { resources: page, ...(nextCursor ? { nextCursor } : {}), ...cacheHints(listTtl(server.listTtlMs, registries), ctx) };
  }));
}

export function listResourceTemplates(server: Server, params: Record<string, unknown>, ctx: RequestContext) {
  return withRegistries(server.registry, server.sources, ctx, (registries) => cachedListPage(server, registries, params, ctx, () => {
    const seen = new Set<string>();
    const all = registries.flatMap((registry) => registry.templates)
      .filter(({ definition }) => !seen.has(definition.uriTemplate) && Boolean(seen.add(definition.uriTemplate)))
      .filter(({ definition }) => mayUse(server, definition, ctx))
      .map((template) => listing(template.definition));
    const { page, nextCursor } = paginate(all, params.cursor, server.pageSize);
    return { resourceTemplates: page, ...(nextCursor ? { nextCursor } : {}), ...cacheHints(listTtl(server.listTtlMs, registries), ctx) };
  }));
}

export async function readResource(server: Server, params: Record<string, unknown>, ctx: RequestContext) {
  const uri = params.uri;
  if (typeof uri !== 'string') throw new McpError(INVALID_PARAMS, 'params.uri must be a string.');
  const read = await findContents(server, uri, ctx);
  if (isOtherResult(read)) return read;
  const { contents, _meta } = Array.isArray(read) || read === undefined ? { contents: read, _meta: undefined } : read;
  if (!contents || contents.length === 0) throw notFound(uri, ctx);
  // A result with its own `_meta` (a paid read's receipt) is the caller's alone: nobody else may be served it from a cache.
  const hints = _meta ? cacheHints(0, ctx, 'private') : cacheHints(server.readTtlMs, ctx);
  return { contents, ...(_meta ? { _meta } : {}), ...hints };
}

/** What serves `uri` answers, once the caller is known to hold the scopes of the resource or template that serves it. */
async function findContents(server: Server, uri: string, ctx: RequestContext): Promise<ReadOutcome | undefined> {
  const reader = findReader(server.registry, uri) ?? (await findInSources(server.sources, ctx, (r) => findReader(r, uri)));
  if (!reader) return undefined;
  requireAccess(server, reader.entry, uri, ctx);
  return reader.read(ctx);
}

/** What serves `uri` in `registry`: the resource of that URI, else the first template it matches. */
function findReader(registry: Registry, uri: string): { entry: Scoped; read(ctx: RequestContext): ReadOutcome | Promise<ReadOutcome> } | undefined {
  const resource = registry.resources.get(uri);
  if (resource) return { entry: resource, read: (ctx) => resource.read(ctx) };
  for (const template of registry.templates) {
    const variables = matchTemplate(template, uri);
    if (variables) return { entry: template.definition, read: (ctx) => template.definition.read(uri, variables, ctx) };
  }
  return undefined;
}

function notFound(uri: string, ctx: RequestContext): McpError {
  const code = ctx.era === 'modern' ? INVALID_PARAMS : RESOURCE_NOT_FOUND_LEGACY;
  return new McpError(code, `Resource not found: ${uri}`, { uri });
}

/** Accepted so clients that subscribe keep working; a stateless server sends no later updates. */
export function subscribe(_server: Server, params: Record<string, unknown>) {
  if (typeof params.uri !== 'string') throw new McpError(INVALID_PARAMS, 'params.uri must be a string.');
  return {};
}
