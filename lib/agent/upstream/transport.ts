/**
 * How an upstream request travels: node:http and node:https, one keep-alive agent each, rather than fetch, which
 * cost a proxied chat call more CPU and garbage (docs/performance.md "Issue 22 round 5: upstream requests over `node:http`").
 * What fetch did for us is done here or in request.ts: redirects are not
 * followed (request.ts names them), bodies are not decoded (no accept-encoding is sent, so an upstream sends them
 * as they are), a connection idle for IDLE_MS is closed, as undici closes its own, and Node 24's proxy variables
 * are followed as its fetch follows them. The modules and agents are made with the first call, off the cold start:
 * node:https loads TLS.
 */

import type { Agent, ClientRequest, IncomingMessage } from 'node:http';

/**
 * undici's default keep-alive: a connection is reused for 4 s after its last reply. An upstream that closes idle
 * connections sooner would otherwise race our reuse, which fails the call.
 */
const IDLE_MS = 4_000;

/** What a request needs of its target's URL, parsed once per URL. */
interface Endpoint {
  /** scheme://host:port, as URL.origin writes it. */
  origin: string;
  secure: boolean;
  hostname: string;
  port: string;
  path: string;
}

/**
 * Parsed URLs are kept for the URLs configured (a handful per deployment) and those an A2A agent card names; past
 * this many, a URL is parsed on each call rather than kept, so an upstream that names a new one each time grows nothing.
 */
const MAX_ENDPOINTS = 64;
const endpoints = new Map<string, Endpoint>();

function endpointOf(url: string): Endpoint {
  let endpoint = endpoints.get(url);
  if (!endpoint) {
    const parsed = new URL(url);
    endpoint = {
      origin: parsed.origin,
      secure: parsed.protocol === 'https:',
      // URL keeps an IPv6 literal in brackets; node:http wants it bare.
      hostname: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: parsed.port,
      path: `${parsed.pathname}${parsed.search}`,
    };
    if (endpoints.size < MAX_ENDPOINTS) endpoints.set(url, endpoint);
  }
  return endpoint;
}

/**
 * Node 24 sends `fetch` through HTTP_PROXY, HTTPS_PROXY and NO_PROXY when started with NODE_USE_ENV_PROXY=1 or
 * --use-env-proxy; an agent does so only when given them (`proxyEnv`, Node 24.5 and later; older Nodes ignore it).
 */
const proxied = (): { proxyEnv?: NodeJS.ProcessEnv } =>
  (process.env.NODE_USE_ENV_PROXY === '1' || process.execArgv.includes('--use-env-proxy') ? { proxyEnv: process.env } : {});

const agentOptions = () => ({ keepAlive: true, timeout: IDLE_MS, ...proxied() });

/** One keep-alive agent per scheme, each made with its first request: `node:https` loads TLS. */
let httpAgent: Agent | undefined;
let httpsAgent: Agent | undefined;

function agentFor(secure: boolean): Agent {
  if (secure) return (httpsAgent ??= new (process.getBuiltinModule('node:https').Agent)(agentOptions()));
  return (httpAgent ??= new (process.getBuiltinModule('node:http').Agent)(agentOptions()));
}

/** The origin of `url` (scheme, host and port), read from the parse kept for it. */
export function originOf(url: string): string {
  return endpointOf(url).origin;
}

/**
 * Sends one request with `headers` and `body` whole. Its reply's head comes as the request's 'response' event, a
 * failure (a connection refused or reset) as 'error'; `destroy()` ends it and its connection.
 */
export function send(url: string, method: 'GET' | 'POST', headers: Record<string, string>, body: string | undefined): ClientRequest {
  const { secure, hostname, port, path } = endpointOf(url);
  const request = process.getBuiltinModule(secure ? 'node:https' : 'node:http').request({
    hostname, port, path, method, agent: agentFor(secure),
    headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
  });
  request.end(body);
  return request;
}

/** A reply's headers as the adapters read them: `get` joins repeated values as fetch's Headers does. */
export class ReplyHeaders {
  readonly #message: IncomingMessage;

  constructor(message: IncomingMessage) {
    this.#message = message;
  }

  get(name: string): string | null {
    const value = this.#message.headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  has(name: string): boolean {
    return this.#message.headers[name.toLowerCase()] !== undefined;
  }
}
