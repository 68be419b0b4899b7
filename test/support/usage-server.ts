/**
 * Test support: the deployment's app from an environment on the local server, with the usage page wired as `npm
 * start` wires it (scripts/serve.ts: the app's own store and auth) or, with `openOnLoopback: false`, as a deployment
 * serves it: never open without sign-in.
 */

import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp, type App, type DefaultAppOptions } from '../../lib/app.js';
import { usagePageOf } from '../../lib/usage/page/function.js';
import { startLocalServer } from '../../scripts/local-server.js';

export interface UsageServer {
  url: string;
  mcpUrl: string;
  app: App;
  close(): Promise<void>;
}

export async function startUsageServer(
  env: Record<string, string>,
  options: { openOnLoopback?: boolean; additions?: DefaultAppOptions } = {},
): Promise<UsageServer> {
  const full = { MCP_LOG: 'off', ...env };
  const app = createDefaultApp(full, options.additions ?? {});
  const usage = usagePageOf(app, full, options.openOnLoopback ?? false);
  const server = await startLocalServer({ port: 0, functions: { '/api/mcp': createMcpHandler(app), '/api/usage': usage.handler } });
  return { url: server.url, mcpUrl: `${server.url}/mcp`, app, close: () => server.close() };
}
