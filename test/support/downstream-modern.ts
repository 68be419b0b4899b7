/**
 * Test support: a mountable MCP server on the 2026-07-28 wire and the legacy one, built with the official
 * v2 server package (`@modelcontextprotocol/server` createMcpHandler, stateless) on a loopback port.
 */

import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serve } from 'srvx';
import * as z from 'zod';

export interface ModernDownstream {
  url: string;
  /** JSON-RPC methods received, in arrival order. */
  methods: string[];
  close(): Promise<void>;
}

function buildServer(): McpServer {
  const server = new McpServer({ name: 'downstream-modern', version: '2.0.0' });
  server.registerTool('echo', { description: 'Echoes text on either era.', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text: `modern: ${text}` }] }));
  server.registerTool('weather', {
    description: 'Structured weather for a city.',
    inputSchema: z.object({ city: z.string() }),
    outputSchema: z.object({ city: z.string(), celsius: z.number() }),
  }, async ({ city }) => ({ content: [{ type: 'text', text: `${city}: 18 C` }], structuredContent: { city, celsius: 18 } }));
  return server;
}

export async function startModernDownstream(): Promise<ModernDownstream> {
  const methods: string[] = [];
  const served = await serveModern(buildServer, (body) => {
    for (const m of Array.isArray(body) ? body : [body]) if (typeof m?.method === 'string') methods.push(m.method);
  });
  return { ...served, methods };
}

/** Serves `build`'s server (stateless, both eras) on a loopback port; `onBody` sees each POST's JSON first. */
export async function serveModern(build: () => McpServer, onBody: (body: any) => void): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createMcpHandler(() => build());
  const server = serve({
    port: 0,
    hostname: '127.0.0.1',
    silent: true,
    async fetch(request) {
      if (request.method === 'POST') onBody(await request.clone().json().catch(() => undefined));
      return handler.fetch(request);
    },
  });
  await server.ready();
  return {
    url: new URL('/mcp', server.url!).href,
    async close() {
      await handler.close();
      await server.close(true);
    },
  };
}
