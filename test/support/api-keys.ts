/**
 * Test support for API keys (MCP_API_KEYS): keys minted and configured as an operator would, written here from the
 * documented format (docs/api-keys.md) rather than with the server's own helpers, and the deployment's app built from
 * that environment by the production path (createDefaultApp), on the local server with the discovery functions.
 */

import { createHash, randomBytes } from 'node:crypto';
import * as z from 'zod';
import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp, type App } from '../../lib/app.js';
import { createProtectedResourceHandler } from '../../lib/auth/metadata.js';
import { createDiscoveryHandler } from '../../lib/discovery/documents.js';
import type { ToolDefinition } from '../../lib/server/registry.js';
import { startLocalServer } from '../../scripts/local-server.js';
import { PROTECTED_TOOLS } from './protected-app.js';
import type { TestServer } from './server.js';

/** A key of the documented shape: `agentmcp_` and 32 random bytes in base64url. */
export const mintTestKey = (): string => `agentmcp_${randomBytes(32).toString('base64url')}`;

/** The MCP_API_KEYS line of `key`: its name, its SHA-256 in hex, then any further fields (`scopes=…`, `rate=…`). */
export function keyLine(name: string, key: string, ...fields: string[]): string {
  return [name, `sha256=${createHash('sha256').update(key).digest('hex')}`, ...fields].join(' ');
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** The protected tools (`whoami`, `admin_only`) and `slow`, which may run as a task. */
export const KEY_TOOLS: ToolDefinition<any>[] = [
  ...PROTECTED_TOOLS,
  {
    name: 'slow',
    description: 'Waits `ms` milliseconds, then answers; a task for clients that support them.',
    input: z.object({ ms: z.number() }),
    task: { support: 'optional' },
    async run({ ms }: { ms: number }, ctx) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: 'text', text: `done for ${ctx.principal?.subject}` }] };
    },
  },
];

/** The deployment's app from `env` (with the key tools) on loopback, with its discovery documents. */
export async function startKeyServer(env: Record<string, string>): Promise<TestServer & { app: App }> {
  const full = { MCP_LOG: 'off', ...env };
  const app = createDefaultApp(full, { tools: KEY_TOOLS });
  const server = await startLocalServer({
    port: 0,
    functions: {
      '/api/mcp': createMcpHandler(app),
      '/api/wk-mcp': createDiscoveryHandler(full),
      '/api/wk-oauth-protected-resource': createProtectedResourceHandler(full),
    },
  });
  return { url: server.url, mcpUrl: `${server.url}/mcp`, close: () => server.close(), app };
}
