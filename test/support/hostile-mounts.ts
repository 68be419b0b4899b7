/**
 * Test support: mountable MCP servers that send more than a mount may read. `startPagingMount` is the official
 * SDK (1.x low-level `Server` over StreamableHTTPServerTransport, stateless) with tools that answer big or chatty,
 * and a tools/list that pages as the test says, forever included. `startEndlessEventMount` is a small raw HTTP
 * server, hostile on purpose: it answers the handshake and tools/list like any server, then answers every
 * tools/call with one SSE event that never ends, which no SDK server can be made to send. `startLingeringMount`
 * is the official SDK (1.x McpServer, stateful sessions, so a `notifications/cancelled` reaches the running call)
 * with tools that outlive their welcome: one reports progress until it is cancelled, one asks its client thousands
 * of questions at once. `startStubbornMount` is a small raw HTTP server that answers every tools/call with an SSE
 * stream it never ends, whatever `notifications/cancelled` says (which the spec allows: the server MAY ignore it).
 */

import { createServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { listenOnLoopback, openSdkSession, readBody } from './downstream.js';

export interface HostileMount {
  url: string;
  /** How many tools/list requests arrived (pages asked for). */
  listRequests(): number;
  /** Resolves once a tools/call's connection has been closed by the client (the endless event was cut). */
  cut?: Promise<void>;
  close(): Promise<void>;
}

export interface PagingOptions {
  /** Tools per page. */
  pageSize: number;
  /** Pages before the list ends; Infinity pages forever. */
  pages: number;
  /** Answer with one JSON body (true) or an SSE stream (false). */
  json?: boolean;
}

const OBJECT_SCHEMA = { type: 'object' as const };
const BASE_TOOLS: Tool[] = [
  { name: 'echo', description: 'Echoes text.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  { name: 'big', description: 'Answers `bytes` bytes of text.', inputSchema: { type: 'object', properties: { bytes: { type: 'number' } } } },
  { name: 'chatty', description: 'Reports `steps` progress notifications of `bytes` bytes each, then says done.', inputSchema: OBJECT_SCHEMA },
];

function buildServer(options: PagingOptions, counted: () => void): Server {
  const server = new Server({ name: 'hostile', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    counted();
    const page = Number(request.params?.cursor ?? 0);
    const extra = Array.from({ length: options.pageSize }, (_, i) => ({ name: `t${page}_${i}`, inputSchema: OBJECT_SCHEMA }));
    const tools = page === 0 ? [...BASE_TOOLS, ...extra] : extra;
    return page + 1 < options.pages ? { tools, nextCursor: String(page + 1) } : { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = (request.params.arguments ?? {}) as { text?: string; bytes?: number; steps?: number };
    if (request.params.name === 'big') return { content: [{ type: 'text', text: 'x'.repeat(args.bytes ?? 0) }] };
    if (request.params.name === 'chatty') {
      const progressToken = request.params._meta?.progressToken;
      for (let i = 1; i <= (args.steps ?? 0) && progressToken !== undefined; i++) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: i, message: 'p'.repeat(args.bytes ?? 0) } });
      }
      return { content: [{ type: 'text', text: 'done' }] };
    }
    return { content: [{ type: 'text', text: `hostile: ${args.text ?? ''}` }] };
  });
  return server;
}

async function listen(server: HttpServer): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

async function closeServer(server: HttpServer): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** The SDK server above, one stateless transport per request; no standalone GET stream (405). */
export async function startPagingMount(options: PagingOptions): Promise<HostileMount> {
  let lists = 0;
  const http = createServer(async (request, response) => {
    if (request.method !== 'POST') return void response.writeHead(405, { allow: 'POST' }).end();
    const body = await readBody(request);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: options.json ?? false });
    const server = buildServer(options, () => void lists++);
    response.on('close', () => void server.close().catch(() => undefined));
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  });
  return { url: await listen(http), listRequests: () => lists, close: () => closeServer(http) };
}

const PROTOCOL_VERSION = '2025-11-25';

/** Writes `data: xxxx…` until the reader goes away, honouring back-pressure; never a line end. */
function writeEndlessEvent(response: ServerResponse, closed: () => void): void {
  const chunk = 'x'.repeat(16 * 1024);
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.write('data: ');
  let open = true;
  response.on('close', () => {
    open = false;
    closed();
  });
  const pump = () => {
    while (open && response.write(chunk)) { /* keep writing while the socket takes it */ }
    if (open) response.once('drain', pump);
  };
  pump();
}

export async function startEndlessEventMount(): Promise<HostileMount> {
  let lists = 0;
  let cutOff!: () => void;
  const cut = new Promise<void>((resolve) => (cutOff = resolve));
  const json = (response: ServerResponse, id: unknown, result: unknown) =>
    void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  const http = createServer(async (request, response) => {
    if (request.method !== 'POST') return void response.writeHead(405, { allow: 'POST' }).end();
    const message = await readBody(request) as { id?: unknown; method?: string };
    if (message.id === undefined) return void response.writeHead(202).end();
    if (message.method === 'initialize') {
      return json(response, message.id, { protocolVersion: PROTOCOL_VERSION, capabilities: { tools: {} }, serverInfo: { name: 'endless', version: '1.0.0' } });
    }
    if (message.method === 'tools/list') {
      lists++;
      return json(response, message.id, { tools: [{ name: 'stream', inputSchema: OBJECT_SCHEMA }, BASE_TOOLS[0]] });
    }
    if (message.method === 'tools/call' && (message as { params?: { name?: string } }).params?.name === 'echo') {
      return json(response, message.id, { content: [{ type: 'text', text: 'endless: still here' }] });
    }
    writeEndlessEvent(response, cutOff);
  });
  return { url: await listen(http), listRequests: () => lists, cut, close: () => closeServer(http) };
}

export interface StubbornMount {
  url: string;
  /** tools/call streams open now, counted on the server's side: each is a connection the client holds. */
  openStreams(): number;
  /** `notifications/cancelled` the mount received. */
  cancellations(): number;
  close(): Promise<void>;
}

export async function startStubbornMount(): Promise<StubbornMount> {
  let open = 0;
  let cancellations = 0;
  const json = (response: ServerResponse, id: unknown, result: unknown) =>
    void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
  const http = createServer(async (request, response) => {
    if (request.method !== 'POST') return void response.writeHead(405, { allow: 'POST' }).end();
    const message = await readBody(request) as { id?: unknown; method?: string };
    if (message.method === 'notifications/cancelled') cancellations++;
    if (message.id === undefined) return void response.writeHead(202).end();
    if (message.method === 'initialize') {
      return json(response, message.id, { protocolVersion: PROTOCOL_VERSION, capabilities: { tools: {} }, serverInfo: { name: 'stubborn', version: '1.0.0' } });
    }
    if (message.method === 'tools/list') return json(response, message.id, { tools: [{ name: 'wait', inputSchema: OBJECT_SCHEMA }] });
    open++;
    response.on('close', () => void open--);
    // The head and a comment go out at once, so the client holds a live stream; nothing more ever follows.
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.write(': working\n\n');
  });
  return { url: await listen(http), openStreams: () => open, cancellations: () => cancellations, close: () => closeServer(http) };
}

export interface LingeringMount {
  url: string;
  /** `progress_forever` calls running now: started and not yet cancelled. */
  alive(): number;
  /** `progress_forever` calls started, and those that saw their cancellation (`notifications/cancelled`). */
  started(): number;
  cancelled(): number;
  /** Answers `ask_many` got: accepted by the client, refused with a JSON-RPC error, and refusals' messages. */
  asked: { answered: number; refused: number; messages: Set<string> };
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * - `progress_forever({ everyMs })` reports progress every `everyMs` until it is cancelled, then answers.
 * - `ask_many({ count })` sends its client `count` elicitation requests at once on the call's stream and answers
 *   as soon as one of them is refused (or all are answered), leaving the rest unanswered: a server that asks more
 *   than anyone will read, and stops listening; with `hold` it then keeps the call open until it is cancelled.
 */
function buildLingering(state: { alive: number; started: number; cancelled: number; asked: LingeringMount['asked'] }): McpServer {
  const server = new McpServer({ name: 'lingering', version: '1.0.0' });
  server.registerTool('progress_forever', { description: 'Reports progress until cancelled.', inputSchema: { everyMs: z.number().int() } },
    async ({ everyMs }, extra) => {
      state.started++;
      state.alive++;
      const progressToken = extra._meta?.progressToken ?? 'none';
      try {
        for (let i = 1; !extra.signal.aborted; i++) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: i } }).catch(() => undefined);
          await sleep(everyMs);
        }
        state.cancelled++;
        return { content: [{ type: 'text', text: 'cancelled' }] };
      } finally {
        state.alive--;
      }
    });
  server.registerTool('ask_many', { description: 'Asks many questions at once.', inputSchema: { count: z.number().int(), hold: z.boolean().optional() } },
    async ({ count, hold }, extra) => {
      let settled = 0;
      const firstRefusal = new Promise<void>((resolve) => {
        for (let i = 0; i < count; i++) {
          extra.sendRequest({ method: 'elicitation/create', params: { message: `Question ${i}?`, requestedSchema: { type: 'object', properties: {} } } }, ElicitResultSchema)
            .then(() => void state.asked.answered++, (error: Error) => {
              state.asked.refused++;
              state.asked.messages.add(error.message);
              resolve();
            })
            .finally(() => ++settled === count && resolve());
        }
      });
      await firstRefusal;
      // `hold`: a server that keeps its call open with its questions pending, until its client gives up on it.
      if (hold) await new Promise<void>((resolve) => extra.signal.addEventListener('abort', () => resolve(), { once: true }));
      return { content: [{ type: 'text', text: `asked ${count}: ${state.asked.answered} answered, ${state.asked.refused} refused so far` }] };
    });
  return server;
}

export async function startLingeringMount(): Promise<LingeringMount> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const state = { alive: 0, started: 0, cancelled: 0, asked: { answered: 0, refused: 0, messages: new Set<string>() } };
  const { http, port } = await listenOnLoopback(async (request, response) => {
    const body = request.method === 'POST' ? await readBody(request) : undefined;
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if ((body as { method?: string } | undefined)?.method !== 'initialize') return void response.writeHead(404).end();
      transport = await openSdkSession(sessions, buildLingering(state));
    }
    await transport.handleRequest(request, response, body);
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    alive: () => state.alive,
    started: () => state.started,
    cancelled: () => state.cancelled,
    asked: state.asked,
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      await closeServer(http);
    },
  };
}
