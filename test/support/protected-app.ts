/**
 * Test support: an app behind bearer auth with two tools (`whoami` needs the default scope, `admin_only`
 * names its own), served by the production MCP handler on the local server; and a parser for challenges.
 */

import { createMcpHandler } from '../../api/mcp.js';
import { createApp, type App } from '../../lib/app.js';
import { createBearerAuth, readAuthConfig, readSignIn } from '../../lib/auth/index.js';
import type { ToolDefinition } from '../../lib/server/registry.js';
import { startTestServer, type TestServer } from './server.js';

export const SCOPE = 'agents:chat';

export const PROTECTED_TOOLS: ToolDefinition[] = [
  { name: 'whoami', description: 'Who is calling.', run: (_a, ctx) => ({ content: [{ type: 'text', text: JSON.stringify(ctx.principal ?? null) }] }) },
  { name: 'admin_only', description: 'Needs admin.', scopes: ['admin'], run: () => ({ content: [{ type: 'text', text: 'ok' }] }) },
];

/** The app configured from `env` (AUTH_* as in production; AUTH_SCOPES defaults to SCOPE). */
export function createProtectedApp(env: Record<string, string | undefined>): App {
  const full = { AUTH_SCOPES: SCOPE, ...env };
  const config = readAuthConfig(full);
  return createApp({
    definitions: [{ tools: PROTECTED_TOOLS }],
    stateSecret: 's'.repeat(32),
    origin: { local: true, allowedOrigins: new Set() },
    auth: config && createBearerAuth(readSignIn(full), full),
    defaultScopes: config?.scopes,
  });
}

/** The protected app on a loopback server. */
export async function startProtectedServer(env: Record<string, string | undefined>): Promise<TestServer & { app: App }> {
  const app = createProtectedApp(env);
  return { ...(await startTestServer(createMcpHandler(app))), app };
}

/** The parameters of a response's Bearer challenge, with `scheme`; empty when there is none. */
export function challengeOf(response: Response): Record<string, string> {
  const header = response.headers.get('www-authenticate');
  if (header === null) return {};
  const params = Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map(([, k, v]) => [k!, v!]));
  return { scheme: header.split(' ')[0]!, ...params };
}
