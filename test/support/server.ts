/**
 * Test support: the local server (vercel.json routes on srvx) on a free loopback port, with the production
 * MCP handler over the conformance fixture pack unless another handler is given.
 */

import { startLocalServer, type FetchHandler } from '../../scripts/local-server.js';
import { createConformanceHandler } from '../fixtures/conformance-handler.js';

export interface TestServer {
  /** Origin, e.g. http://localhost:41234 */
  url: string;
  /** The MCP endpoint, `${url}/mcp` */
  mcpUrl: string;
  close(): Promise<void>;
}

export async function startTestServer(handler: FetchHandler = createConformanceHandler()): Promise<TestServer> {
  const server = await startLocalServer({ port: 0, functions: { '/api/mcp': handler } });
  return { url: server.url, mcpUrl: `${server.url}/mcp`, close: () => server.close() };
}

/** Headers a conforming client sends with every POST. */
export const POST_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
} as const;
