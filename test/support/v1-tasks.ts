/** Test support: the official v1 SDK client, whose experimental task API speaks the 2025-11-25 tasks (SEP-1686). */

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';

export async function connectV1(url: string): Promise<Client> {
  const client = new Client({ name: 'agent-mcp-tests-v1-tasks', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** A task-augmented tools/call; its CreateTaskResult. */
export const createTask = (client: Client, name: string, args: Record<string, unknown>) =>
  client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
