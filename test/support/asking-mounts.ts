/**
 * Test support: mountable servers whose tools ask their client questions, each built with an official SDK.
 * - `startAskingLegacyMount`: `@modelcontextprotocol/sdk` 1.x McpServer (2025 wire, stateful sessions); its tools
 *   push `elicitation/create` and `sampling/createMessage` on the call's stream and report the answers.
 * - `startAskingModernMount`: `@modelcontextprotocol/server` 2.x (dual era, stateless); its tools answer
 *   `input_required` (MRTR) with their own `requestState`, over two rounds for `ask_twice`.
 * Both record the client capabilities each request declared.
 */

import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer as LegacyServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpServer, acceptedContent, inputRequired } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { readBody } from './downstream.js';
import { serveModern } from './downstream-modern.js';

export interface AskingMount {
  url: string;
  /** Client capabilities declared at each `initialize` (legacy) or on each `tools/call` (modern), in arrival order. */
  declared: unknown[];
  close(): Promise<void>;
}

const NAME_SCHEMA = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
const failure = (t: string) => ({ content: [{ type: 'text' as const, text: t }], isError: true });

function buildLegacy(): LegacyServer {
  const server = new LegacyServer({ name: 'asking-legacy', version: '1.0.0' });
  server.registerTool('ask_name', { description: 'Asks the user for their name.' }, async () => {
    try {
      const answer = await server.server.elicitInput({ message: 'What is your name?', requestedSchema: NAME_SCHEMA });
      return text(`hello ${String(answer.content?.name)} (${answer.action})`);
    } catch (error) {
      return failure(`could not ask: ${(error as Error).message}`);
    }
  });
  server.registerTool('ask_model', { description: "Asks the client's model." }, async () => {
    try {
      const answer = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 20 });
      return text(`the model said ${answer.content.type === 'text' ? answer.content.text : '?'}`);
    } catch (error) {
      return failure(`could not ask: ${(error as Error).message}`);
    }
  });
  // Sends without looking at the declared capabilities, as a careless server would.
  server.registerTool('ask_anyway', { description: 'Asks for a name whatever the client declared.' }, async () => {
    try {
      const answer = await server.server.request({ method: 'elicitation/create', params: { message: 'Name?', requestedSchema: NAME_SCHEMA } }, ElicitResultSchema);
      return text(`hello ${String(answer.content?.name)}`);
    } catch (error) {
      return failure(`could not ask: ${(error as Error).message}`);
    }
  });
  return server;
}

export async function startAskingLegacyMount(): Promise<AskingMount> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const declared: unknown[] = [];
  const http: Server = createServer(async (request, response) => {
    try {
      const body = request.method === 'POST' ? ((await readBody(request)) as any) : undefined;
      if (body?.method === 'initialize') declared.push(body.params?.capabilities);
      const id = request.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!transport) {
        if (body?.method !== 'initialize') return void response.writeHead(404).end();
        const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void sessions.set(sid, created) });
        created.onclose = () => created.sessionId && sessions.delete(created.sessionId);
        await buildLegacy().connect(created);
        transport = created;
      }
      await transport.handleRequest(request, response, body);
    } catch (error) {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    declared,
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function buildModern(): McpServer {
  const server = new McpServer({ name: 'asking-modern', version: '2.0.0' });
  server.registerTool('ask_name', { description: 'Asks the user for their name (MRTR).', inputSchema: z.object({}) }, async (_args, ctx) => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'name');
    if (!answer) {
      return inputRequired({
        inputRequests: { name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: NAME_SCHEMA }) },
        requestState: 'mount-state-1',
      });
    }
    return text(`hello ${String(answer.name)} (state ${String(ctx.mcpReq.requestState())})`);
  });
  server.registerTool('ask_model', { description: "Asks the client's model (MRTR).", inputSchema: z.object({}) }, async (_args, ctx) => {
    const answer = ctx.mcpReq.inputResponses?.capital as { content?: { text?: string } } | undefined;
    if (!answer?.content) {
      return inputRequired({
        inputRequests: { capital: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 20 }) },
      });
    }
    return text(`the model said ${String(answer.content.text)}`);
  });
  server.registerTool('ask_twice', { description: 'Asks a name, then a colour, in two rounds.', inputSchema: z.object({}) }, async (_args, ctx) => {
    const state = ctx.mcpReq.requestState<string>();
    const name = acceptedContent(ctx.mcpReq.inputResponses, 'name');
    if (state === undefined) {
      if (!name) return inputRequired({ inputRequests: { name: inputRequired.elicit({ message: 'Name?', requestedSchema: NAME_SCHEMA }) } });
      return inputRequired({
        inputRequests: { colour: inputRequired.elicit({ message: 'Colour?', requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } } }) },
        requestState: `name=${String(name.name)}`,
      });
    }
    const colour = acceptedContent(ctx.mcpReq.inputResponses, 'colour');
    return text(`${state.slice('name='.length)} likes ${String(colour?.colour)}`);
  });
  return server;
}

export async function startAskingModernMount(): Promise<AskingMount> {
  const declared: unknown[] = [];
  const served = await serveModern(buildModern, (body) => {
    if (body?.method === 'tools/call') declared.push(body.params?._meta?.['io.modelcontextprotocol/clientCapabilities']);
  });
  return { ...served, declared };
}
