/**
 * The local server: the api/ functions behind the routes vercel.json declares, and public/ as static files,
 * on srvx (a maintained Node adapter for Web handlers). Used by `npm start`, the conformance fixture server
 * and the tests, so all of them exercise the same routing a deployment has.
 */

import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { fileURLToPath } from 'node:url';
import { serve } from 'srvx';
import { staticMiddleware } from 'srvx/static';
import { refuse } from '../lib/http/replies.js';

export type FetchHandler = (request: Request) => Promise<Response> | Response;

interface Rewrite {
  source: string;
  destination: string;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Compiles a vercel.json `source` (path-to-regexp subset: `:name` and `:name*`) to an anchored pattern. */
function compileSource(source: string): RegExp {
  const pattern = source
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\/:(\w+)\*/g, '(?:/.*)?')
    .replace(/:(\w+)/g, '[^/]+');
  return new RegExp(`^${pattern}$`);
}

function readRewrites(): Array<{ pattern: RegExp; destination: string }> {
  const config = JSON.parse(readFileSync(`${ROOT}/vercel.json`, 'utf8')) as { rewrites?: Rewrite[] };
  return (config.rewrites ?? []).map((r) => ({ pattern: compileSource(r.source), destination: r.destination }));
}

/** Loads `api/<name>.ts` default exports lazily, as Vercel loads one function per route. */
async function loadFunction(name: string): Promise<FetchHandler | undefined> {
  if (!/^[\w-]+$/.test(name)) return undefined;
  try {
    const module = (await import(`${ROOT}/api/${name}.ts`)) as { default?: { fetch: FetchHandler } };
    return module.default?.fetch.bind(module.default);
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}

/**
 * srvx builds `request.url` from the Host header, which it checks only for characters: `localhost:99999` makes a
 * URL nothing can parse (reading `url` may even throw, for a path it normalises), and every route would fail.
 * Such a request is the client's error (RFC 9112 §3.2: a Host that is not a valid authority gets 400), answered
 * before any route sees it.
 */
function refuseUnreadableUrl(request: Request, next: () => Response | Promise<Response>): Response | Promise<Response> {
  if (hasReadableUrl(request)) return next();
  return refuse(400, 'Bad Request: the Host header is not a valid host[:port].');
}

function hasReadableUrl(request: Request): boolean {
  try {
    return URL.canParse(request.url);
  } catch {
    return false;
  }
}

/**
 * A Web `Response` made without a `statusText` has an empty one, and srvx hands it to node:http as the reason
 * phrase: every status line read `HTTP/1.1 200 ` (RFC 9112 allows it; people and some tools stumble on it). Such a
 * response gets the standard phrase; its body and headers pass through untouched, a stream still streaming.
 */
async function withReasonPhrase(_request: Request, next: () => Response | Promise<Response>): Promise<Response> {
  const response = await next();
  const phrase = STATUS_CODES[response.status];
  if (response.statusText || phrase === undefined) return response;
  return new Response(response.body, { status: response.status, statusText: phrase, headers: response.headers });
}

export interface LocalServerOptions {
  port?: number;
  hostname?: string;
  /** Handlers that replace an api function, keyed by its path (e.g. `/api/mcp`). */
  functions?: Record<string, FetchHandler>;
  silent?: boolean;
}

export async function startLocalServer(options: LocalServerOptions = {}) {
  const rewrites = readRewrites();
  const functions = new Map<string, FetchHandler>(Object.entries(options.functions ?? {}));

  async function route(request: Request): Promise<Response | undefined> {
    const { pathname } = new URL(request.url);
    const target = rewrites.find((r) => r.pattern.test(pathname))?.destination ?? pathname;
    const path = target.split('?')[0]!;
    if (!path.startsWith('/api/')) return undefined;
    let fn = functions.get(path);
    if (!fn) {
      fn = await loadFunction(path.slice('/api/'.length));
      if (fn) functions.set(path, fn);
    }
    return fn?.(request);
  }

  const server = serve({
    port: options.port ?? 3000,
    hostname: options.hostname ?? 'localhost',
    silent: options.silent ?? true,
    middleware: [withReasonPhrase, refuseUnreadableUrl, staticMiddleware({ dir: `${ROOT}/public` })],
    async fetch(request) {
      return (await route(request)) ?? new Response('Not Found', { status: 404 });
    },
  });
  await server.ready();
  const url = new URL(server.url!);
  return { url: `http://localhost:${url.port}`, close: () => server.close(true) };
}
