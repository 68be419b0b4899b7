/** prompts/list and prompts/get; a missing required argument is -32602. */

import { INVALID_PARAMS, McpError } from '../../protocol/errors.js';
import { isObject } from '../../protocol/jsonrpc.js';
import { mayUse, requireAccess } from '../access.js';
import type { RequestContext } from '../context.js';
import { paginate } from '../pagination.js';
import { findInSources, listTtl, mergeEntries, withRegistries } from '../registry.js';
import type { Server } from '../server.js';
import { cachedListPage } from '../list-cache.js';
import { cacheHints } from './lifecycle.js';

export function listPrompts(server: Server, params: Record<string, unknown>, ctx: RequestContext) {
  return withRegistries(server.registry, server.sources, ctx, (registries) => cachedListPage(server, registries, params, ctx, () => {
    const all = mergeEntries(registries, (registry) => registry.prompts)
      .filter((prompt) => mayUse(server, prompt, ctx))
      .map(({ get: _get, complete: _complete, scopes: _scopes, ...listing }) => listing);
    const { page, nextCursor } = paginate(all, params.cursor, server.pageSize);
    return { prompts: page, ...(nextCursor ? { nextCursor } : {}), ...cacheHints(listTtl(server.listTtlMs, registries), ctx) };
  }));
}

export async function getPrompt(server: Server, params: Record<string, unknown>, ctx: RequestContext) {
  const name = params.name;
  const prompt = typeof name !== 'string' ? undefined
    : server.registry.prompts.get(name) ?? (await findInSources(server.sources, ctx, (registry) => registry.prompts.get(name)));
  if (!prompt) throw new McpError(INVALID_PARAMS, `Unknown prompt: ${String(params.name)}.`);
  requireAccess(server, prompt, prompt.name, ctx);
  const args = params.arguments ?? {};
  if (!isObject(args) || !Object.values(args).every((v) => typeof v === 'string')) {
    throw new McpError(INVALID_PARAMS, 'params.arguments must map names to strings.');
  }
  const missing = (prompt.arguments ?? []).filter((a) => a.required && args[a.name] === undefined);
  if (missing.length > 0) {
    throw new McpError(INVALID_PARAMS, `Missing required arguments: ${missing.map((a) => a.name).join(', ')}.`);
  }
  return prompt.get(args as Record<string, string>, ctx);
}
