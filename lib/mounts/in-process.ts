/**
 * An in-process MCP client on an app: the official client over `app.connectInProcess(principal)`, no
 * network. In-process agents use it to see (and call) every tool the app serves, mounted ones included.
 */

import type { Tool } from '@modelcontextprotocol/client';
import type { InProcessTransport } from '../server/in-process.js';

/** The tools an in-process client on `transport` can call; the client is closed afterwards. */
export async function listToolsInProcess(transport: InProcessTransport): Promise<Tool[]> {
  const { Client } = await import('@modelcontextprotocol/client');
  const client = new Client({ name: 'agent-mcp-in-process', version: '0.1.0' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}
