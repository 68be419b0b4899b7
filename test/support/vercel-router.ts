/**
 * Test support: a request routed the way Vercel's router routes it through the Build Output API v3 directory
 * `npm run build` writes (.vercel/output/config.json `routes`, which `vercel build` compiles from vercel.json): a
 * static file for the path first (the `filesystem` phase), else the first route of that phase whose `src` matches,
 * either its `status` or a rewrite to the built function its `dest` names. The function receives the original path
 * with the rewrite's query, as deployed functions do (shared/reference x402-upstash-vercel.md C9). Only the kinds of
 * route this project's build emits are understood; any other makes the helper throw rather than guess.
 */

import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// @ts-expect-error plain ESM helper without type declarations
import { loadBuiltFunction } from '../../scripts/load-built.mjs';

const OUTPUT = fileURLToPath(new URL('../../.vercel/output', import.meta.url));

interface Route {
  handle?: string;
  src?: string;
  dest?: string;
  status?: number;
  check?: boolean;
}

/** What the router chose for a path: a static file, a status, or a function and the URL it is called with. */
export type Routed =
  | { kind: 'static'; file: string }
  | { kind: 'status'; status: number }
  | { kind: 'function'; name: string; url: string };

/** The routes of the filesystem phase, in order. */
function filesystemRoutes(): Route[] {
  const { routes } = JSON.parse(readFileSync(`${OUTPUT}/config.json`, 'utf8')) as { routes: Route[] };
  const start = routes.findIndex((r) => r.handle === 'filesystem');
  const rest = routes.slice(start + 1);
  const end = rest.findIndex((r) => r.handle !== undefined);
  return end === -1 ? rest : rest.slice(0, end);
}

export function route(url: string): Routed {
  const { origin, pathname, search } = new URL(url);
  if (existsSync(`${OUTPUT}/static${pathname}`) && pathname !== '/') return { kind: 'static', file: `${OUTPUT}/static${pathname}` };
  for (const r of filesystemRoutes()) {
    const match = r.src === undefined ? null : new RegExp(r.src).exec(pathname);
    if (!match) continue;
    if (r.dest === undefined) {
      if (r.status === undefined) throw new Error(`a route this helper does not understand: ${JSON.stringify(r)}`);
      return { kind: 'status', status: r.status };
    }
    const dest = r.dest.replace(/\$(\d)/g, (_, n: string) => match[Number(n)] ?? '');
    const [path, query] = dest.split('?');
    const params = new URLSearchParams(search);
    for (const [key, value] of new URLSearchParams(query ?? '')) params.set(key, value);
    const rest = params.toString();
    return { kind: 'function', name: path!.replace(/^\//, ''), url: `${origin}${pathname}${rest ? `?${rest}` : ''}` };
  }
  return { kind: 'status', status: 404 };
}

/** Routes `url` and, when it reaches a function, calls the built function with the request the platform would build. */
export async function fetchBuilt(url: string, init: RequestInit = {}): Promise<Response> {
  const routed = route(url);
  if (routed.kind === 'static') return new Response(readFileSync(routed.file), { status: 200 });
  if (routed.kind === 'status') return new Response(null, { status: routed.status });
  const fn = await loadBuiltFunction(routed.name) as { fetch(request: Request): Promise<Response> };
  return fn.fetch(new Request(routed.url, init));
}
