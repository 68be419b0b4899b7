/** Test support for the agent proxy: a real upstream process and agent-mcp configured to use it. */

import type { Client } from '@modelcontextprotocol/client';
import { createMcpHandler } from '../../api/mcp.js';
import { agentDefinitions } from '../../lib/agent/index.js';
import { createApp, type App } from '../../lib/app.js';
import { connectHttp, createV2Client } from '../support/sdk.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startUpstream, type Upstream } from '../support/upstream.js';

export const UPSTREAM_KEY = 'sk-upstream-secret-0123456789';

export interface AgentHarness {
  upstream: Upstream;
  app: App;
  server: TestServer;
  connect(era: 'legacy' | 'modern', headers?: Record<string, string>): Promise<Client>;
  close(): Promise<void>;
}

export async function startAgentHarness(): Promise<AgentHarness> {
  const upstream = await startUpstream();
  const env = {
    UPSTREAM_KEY,
    AGENT_TIMEOUT_MS: '10000',
    AGENTS: JSON.stringify([
      { id: 'echo', name: 'Echo', description: 'Echoes over OpenAI streaming.', format: 'openai', url: `${upstream.url}/v1`, model: 'test-model', apiKeyEnv: 'UPSTREAM_KEY' },
      { id: 'plat', name: 'Platform', format: 'platform', url: `${upstream.url}/platform/chat`, upstreamAgent: 'support-bot' },
      { id: 'quick', format: 'openai', url: `${upstream.url}/v1`, model: 'test-model', timeoutMs: 300 },
      { id: 'gone', format: 'openai', url: 'http://127.0.0.1:9/v1', model: 'test-model' },
    ]),
  };
  const app = createApp({
    definitions: [agentDefinitions(env)],
    stateSecret: 's'.repeat(32),
    origin: { local: true, allowedOrigins: new Set() },
  });
  const server = await startTestServer(createMcpHandler(app));
  const clients: Client[] = [];
  return {
    upstream,
    app,
    server,
    async connect(era, headers = {}) {
      const client = createV2Client(era);
      await connectHttp(client, server.mcpUrl, headers);
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await server.close();
      upstream.stop();
    },
  };
}

/** The text of a tool result's first text block. */
export function textOf(result: { content?: unknown }): string {
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return content.find((c) => c.type === 'text')?.text ?? '';
}
