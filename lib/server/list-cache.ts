/**
 * A first page of a list is the same for every caller who may see the same entries on the same wire, so it is
 * built, frozen and serialized once (lib/protocol/shared-result.ts) and then served as is. It is kept per server
 * and per registry a list was merged from: a mount whose tools change serves a new registry object, and the
 * pages built from the old one go with it (WeakMap). Lists from an incomplete registry are never kept (their
 * caching hint is 0), nor later pages (a cursor is the client's string, never a key).
 */

import type { Era } from '../protocol/methods.js';
import { shareResult } from '../protocol/shared-result.js';
import type { Principal, RequestContext } from './context.js';
import type { Registry } from './registry.js';

/** Views (wire × what the caller may see) kept per set of registries; past this, the oldest is dropped. */
export const MAX_LIST_VIEWS = 16;

interface Node {
  next: WeakMap<Registry, Node>;
  views?: Map<string, Record<string, unknown>>;
}

const roots = new WeakMap<object, Node>();

/**
 * What decides a list's content besides the registries: the method, the wire and the caller's scopes (a caller
 * without a principal is not checked, and gets the public caching hint).
 */
function viewOf(method: string, era: Era, principal: Principal | undefined): string {
  const who = principal ? `p ${principal.scopes.join(' ')}` : 'a';
  return `${method}\n${era}\n${who}`;
}

/** The node of `owner` and its registries, in order; `make`: made where missing, else undefined there. */
function nodeOf(owner: object, registries: readonly Registry[], make: boolean): Node | undefined {
  let node = roots.get(owner);
  if (!node && make) roots.set(owner, (node = { next: new WeakMap() }));
  for (const registry of registries) {
    if (!node) return undefined;
    let next = node.next.get(registry);
    if (!next && make) node.next.set(registry, (next = { next: new WeakMap() }));
    node = next;
  }
  return node;
}

/** The page `build` makes for this request, built once per server, registries and view when it can be kept. */
export function cachedListPage<T extends Record<string, unknown>>(
  owner: object, registries: readonly Registry[], params: Record<string, unknown>, ctx: RequestContext, build: () => T,
): T {
  if (params.cursor !== undefined || registries.some((registry) => registry.incomplete)) return build();
  const node = nodeOf(owner, registries, true)!;
  const views = (node.views ??= new Map());
  const view = viewOf(ctx.method, ctx.era, ctx.principal);
  const kept = views.get(view);
  if (kept) return kept as T;
  const page = shareResult(build());
  if (views.size >= MAX_LIST_VIEWS) views.delete(views.keys().next().value!);
  views.set(view, page);
  return page;
}

/**
 * The first page of `method` kept for this view, without building anything: undefined until a request of the view
 * has been served by its list method (which keeps the page), and for a registry that is not complete.
 */
export function keptListPage(
  owner: object, registries: readonly Registry[], method: string, era: Era, principal: Principal | undefined,
): Record<string, unknown> | undefined {
  if (registries.some((registry) => registry.incomplete)) return undefined;
  return nodeOf(owner, registries, false)?.views?.get(viewOf(method, era, principal));
}
