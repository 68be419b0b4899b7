/**
 * What a mounted server offers, listed within the mount's bounds. Each kind is walked page by page here rather
 * than by the client's own walk, which follows up to 64 pages and keeps every item before it can be stopped: a
 * server that pages forever, or lists a million tools, must not hold the connection or the instance's memory.
 * Past a bound the kind is listed partially, and the cut is reported (mount://status, the server log).
 */

import type { Client, Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import { METHOD_NOT_FOUND } from '../protocol/errors.js';
import type { MountConfig } from './config.js';

/** What a mounted server offered when it was listed. */
export interface MountListings {
  tools: Tool[];
  resources: Resource[];
  templates: ResourceTemplate[];
  prompts: Prompt[];
  /** Kinds listed partially because a bound was reached, each saying which (absent: everything was listed). */
  truncated?: string[];
}

export type ListBounds = Pick<MountConfig, 'maxReplyBytes' | 'maxListItems' | 'maxListPages'>;
type Options = { signal: AbortSignal; timeout: number };

const KINDS = {
  tools: { method: 'tools/list', field: 'tools' },
  resources: { method: 'resources/list', field: 'resources' },
  templates: { method: 'resources/templates/list', field: 'resourceTemplates' },
  prompts: { method: 'prompts/list', field: 'prompts' },
} as const;

type Kind = keyof typeof KINDS;

export async function listOfferings(client: Client, bounds: ListBounds, options: Options): Promise<MountListings> {
  const offers = client.getServerCapabilities() ?? {};
  const offered: Record<Kind, boolean> = { tools: !!offers.tools, resources: !!offers.resources, templates: !!offers.resources, prompts: !!offers.prompts };
  const truncated: string[] = [];
  const list = async (kind: Kind) => {
    if (!offered[kind]) return [];
    const walk = walkPages(client, kind, bounds, options);
    const { items, cut } = await (kind === 'templates' ? orNone(walk) : walk);
    if (cut) truncated.push(`${kind}: ${cut}; the first ${items.length} are listed`);
    return items;
  };
  const [tools, resources, templates, prompts] = await Promise.all([list('tools'), list('resources'), list('templates'), list('prompts')]);
  return {
    tools: tools as Tool[],
    resources: resources as Resource[],
    templates: templates as ResourceTemplate[],
    prompts: prompts as Prompt[],
    ...(truncated.length ? { truncated } : {}),
  };
}

interface Walked {
  items: unknown[];
  /** Which bound stopped the walk. */
  cut?: string;
}

/**
 * Follows `nextCursor` while every bound holds: at most `maxListPages` pages, `maxListItems` items, and
 * `maxReplyBytes` of items across the pages (each page is already bounded by itself as a reply).
 */
async function walkPages(client: Client, kind: Kind, bounds: ListBounds, options: Options): Promise<Walked> {
  const { method, field } = KINDS[kind];
  const items: unknown[] = [];
  let bytes = 0;
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    if (pages === bounds.maxListPages) return { items, cut: `more than ${bounds.maxListPages} pages (maxListPages)` };
    const page = await client.request({ method, params: cursor === undefined ? {} : { cursor } }, options) as Record<string, unknown>;
    const got = Array.isArray(page[field]) ? (page[field] as unknown[]) : [];
    bytes += JSON.stringify(got).length;
    if (bytes > bounds.maxReplyBytes) return { items, cut: `more than ${bounds.maxReplyBytes} bytes across its pages (maxReplyBytes)` };
    const room = bounds.maxListItems - items.length;
    items.push(...got.slice(0, room));
    if (got.length > room) return { items, cut: `more than ${bounds.maxListItems} (maxListItems)` };
    cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    if (cursor === undefined) return { items };
  }
}

/** Some servers that offer resources have no templates and answer -32601 (Method not found): that is none. */
function orNone(walk: Promise<Walked>): Promise<Walked> {
  return walk.catch((error: { code?: unknown }) => {
    if (error?.code === METHOD_NOT_FOUND) return { items: [] };
    throw error;
  });
}
