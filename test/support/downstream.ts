/**
 * Test support: real MCP servers to mount, built with the official SDK (`@modelcontextprotocol/sdk` 1.x
 * McpServer + StreamableHTTPServerTransport, stateful sessions) on a loopback port of this process.
 * `ready` answers at once; `gated` holds every `initialize` until the test calls `release()` (a server slow
 * to start, with no clock involved); `failing` answers every request with HTTP 500.
 */

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

export type DownstreamMode = 'ready' | 'gated' | 'failing';

export interface Downstream {
  name: string;
  /** The MCP endpoint, e.g. http://127.0.0.1:41234/mcp */
  url: string;
  /** JSON-RPC methods received, in arrival order. */
  methods: string[];
  /** Headers of every POST received, in arrival order. */
  headers: IncomingMessage['headers'][];
  /** Each request's method and `params._meta` as received (trace context travels there), in arrival order. */
  metas: Array<{ method: string; meta?: Record<string, unknown> }>;
  /** Resolves once an `initialize` has arrived (for a gated server: is being held). */
  initializing: Promise<void>;
  /** Lets held and later `initialize` requests through. */
  release(): void;
  /** Forgets every session, as a restarted server would: their next requests get 404. */
  dropSessions(): Promise<void>;
  /** Resolves once the `wait` call with `key` is running downstream. */
  waiting(key: string): Promise<void>;
  /** Resolves once the `wait` call with `key` saw its cancellation downstream. */
  cancelled(key: string): Promise<void>;
  close(): Promise<void>;
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

interface WaitCall {
  started: ReturnType<typeof deferred>;
  cancelled: ReturnType<typeof deferred>;
}

function buildServer(name: string, waitCall: (key: string) => WaitCall): McpServer {
  const server = new McpServer({ name: `downstream-${name}`, version: '1.0.0' });
  server.registerTool('echo', { description: `Echoes text (${name}).`, inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text: `${name}: ${text}` }] }));
  server.registerTool('count', { description: 'Reports progress up to n, then says done.', inputSchema: { n: z.number().int() } },
    async ({ n }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let i = 1; i <= n && progressToken !== undefined; i++) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: i, total: n, message: `step ${i}` } });
      }
      return { content: [{ type: 'text', text: `counted to ${n}` }] };
    });
  server.registerTool('weather', {
    description: 'Structured weather for a city.',
    inputSchema: { city: z.string() },
    outputSchema: { city: z.string(), celsius: z.number() },
  }, async ({ city }) => ({ content: [{ type: 'text', text: `${city}: 21 C` }], structuredContent: { city, celsius: 21 } }));
  server.registerTool('fail', { description: 'Always fails as a tool.' },
    async () => ({ content: [{ type: 'text', text: 'the downstream tool failed on purpose' }], isError: true }));
  server.registerTool('authorize', { description: 'Needs the user to visit a URL first (-32042).' }, async () => {
    throw new UrlElicitationRequiredError([{ mode: 'url', url: 'https://example.com/consent', elicitationId: 'consent-1', message: 'Grant access first.' }]);
  });
  server.registerTool('headers', { description: 'Returns the authorization header it received.' },
    async (extra) => ({ content: [{ type: 'text', text: String(extra.requestInfo?.headers.authorization ?? '(none)') }] }));
  server.registerTool('wait', { description: 'Waits until cancelled.', inputSchema: { key: z.string() } },
    async ({ key }, extra) => {
      waitCall(key).started.resolve();
      await new Promise<void>((resolve) => {
        if (extra.signal.aborted) return resolve();
        extra.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      waitCall(key).cancelled.resolve();
      return { content: [{ type: 'text', text: 'cancelled' }] };
    });
  server.registerResource('readme', `note://${name}/readme`, { description: `Readme of ${name}.`, mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `readme of ${name}` }] }));
  const startingWith = (values: string[]) => (value: string) => values.filter((v) => v.startsWith(value));
  server.registerResource('item', new ResourceTemplate(`note://${name}/items/{id}`, { list: undefined, complete: { id: startingWith(['1', '2', '10']) } }), { mimeType: 'text/plain' },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `item ${String(id)} of ${name}` }] }));
  server.registerPrompt('greet', { description: 'Greets someone.', argsSchema: { who: completable(z.string(), startingWith(['Ada', 'Alan', 'Grace'])) } },
    ({ who }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${who} from ${name}.` } }] }));
  return server;
}

/** A new stateful session served by `server`: filed in `sessions` once initialized, removed when closed. */
export async function openSdkSession(sessions: Map<string, StreamableHTTPServerTransport>, server: McpServer): Promise<StreamableHTTPServerTransport> {
  const created = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void sessions.set(id, created),
  });
  created.onclose = () => created.sessionId && sessions.delete(created.sessionId);
  await server.connect(created);
  return created;
}

/** An HTTP server on a free loopback port; a handler that throws answers 500. */
export async function listenOnLoopback(handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>): Promise<{ http: Server; port: number }> {
  const http = createServer(async (request, response) => {
    try {
      await handle(request, response);
    } catch (error) {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { http, port: (http.address() as AddressInfo).port };
}

/** A request's JSON body (undefined when empty). */
export async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

export interface DownstreamOptions {
  mode?: DownstreamMode;
  /** More tools to offer, each echoing its own name. */
  extraTools?: string[];
}

export async function startDownstream(name: string, options: DownstreamMode | DownstreamOptions = {}): Promise<Downstream> {
  const { mode = 'ready', extraTools = [] } = typeof options === 'string' ? { mode: options } : options;
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const methods: string[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const metas: Downstream['metas'] = [];
  const initializing = deferred();
  const released = deferred();
  if (mode !== 'gated') released.resolve();
  const waits = new Map<string, WaitCall>();
  const waitCall = (key: string) => {
    if (!waits.has(key)) waits.set(key, { started: deferred(), cancelled: deferred() });
    return waits.get(key)!;
  };

  const { http, port } = await listenOnLoopback(async (request, response) => {
    if (mode === 'failing') return void response.writeHead(500, { 'content-type': 'text/plain' }).end('down for maintenance');
    const body = request.method === 'POST' ? await readBody(request) : undefined;
    const messages = Array.isArray(body) ? body : body ? [body] : [];
    for (const m of messages) if (typeof m?.method === 'string') methods.push(m.method);
    for (const m of messages) if (typeof m?.method === 'string') metas.push({ method: m.method, meta: m.params?._meta });
    if (request.method === 'POST') headers.push(request.headers);
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (!messages.some((m) => m?.method === 'initialize')) {
        return void response.writeHead(sessionId ? 404 : 400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No valid session.' } }));
      }
      initializing.resolve();
      await released.promise;
      const server = buildServer(name, waitCall);
      for (const tool of extraTools) server.registerTool(tool, { description: 'An extra tool.' }, async () => ({ content: [{ type: 'text', text: tool }] }));
      transport = await openSdkSession(sessions, server);
    }
    await transport.handleRequest(request, response, body);
  });
  return {
    name,
    url: `http://127.0.0.1:${port}/mcp`,
    methods,
    headers,
    metas,
    initializing: initializing.promise,
    release: () => released.resolve(),
    async dropSessions() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((t) => t.close().catch(() => undefined)));
    },
    waiting: (key) => waitCall(key).started.promise,
    cancelled: (key) => waitCall(key).cancelled.promise,
    async close() {
      released.resolve();
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
