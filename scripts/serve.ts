/**
 * `npm start`: the deployment's functions on http://localhost:PORT. The whole configuration is read and checked
 * before the server listens: a bad setting stops start-up with the message naming the variable, and the banner
 * says what is really served.
 */

import { createMcpHandler } from '../api/mcp.js';
import { readAgents } from '../lib/agent/config.js';
import { createDefaultApp } from '../lib/app.js';
import { describeAuth, type BearerAuth } from '../lib/auth/index.js';
import { createProtectedResourceHandler } from '../lib/auth/metadata.js';
import { createAuthorizationServerHandler } from '../lib/auth/server/handler.js';
import { readConfig, type Config } from '../lib/config.js';
import { createDiscoveryHandler } from '../lib/discovery/documents.js';
import { describeStartupError, type FetchHandler } from '../lib/http/configured.js';
import { startLocalServer } from './local-server.js';

type Env = Record<string, string | undefined>;

function fail(message: string): never {
  console.error(`agent-mcp: ${message}`);
  process.exit(1);
}

function readPort(env: Env): number {
  const raw = env.PORT ?? '3000';
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65_535) fail(`configuration error: PORT must be a port number (0-65535), got "${raw}".`);
  return port;
}

/**
 * Every function's handler, built now so that a bad setting fails here rather than on the first request. They read
 * `env`, whose PORT is the port served: served locally, the URLs they advertise and the token audience use it.
 */
function buildFunctions(env: Env): { config: Config; auth?: BearerAuth; functions: Record<string, FetchHandler> } {
  try {
    const config = readConfig(env);
    const app = createDefaultApp(env);
    return {
      config,
      auth: app.auth,
      functions: {
        '/api/mcp': createMcpHandler(app),
        '/api/wk-mcp': createDiscoveryHandler(env),
        '/api/wk-oauth-protected-resource': createProtectedResourceHandler(env),
        '/api/oauth': createAuthorizationServerHandler(env),
      },
    };
  } catch (error) {
    fail(describeStartupError(error));
  }
}

/** A URL without user info or query, which may hold credentials. */
const withoutSecrets = (url: string) => {
  const { origin, pathname } = new URL(url);
  return `${origin}${pathname}`;
};

/** The agents `chat_with_agent` serves, as configured (lib/agent/config.ts). */
function describeAgents(env: Env): string {
  const agents = readAgents(env).map((a) => a.profile);
  if (agents.length === 1 && agents[0]!.id === 'demo' && agents[0]!.kind === 'in-process') {
    return 'demo (the in-process demo agent; set AGENT_URL or AGENTS for yours)';
  }
  return agents.map((a) => `${a.id} (${a.kind}${a.id === 'default' && env.AGENT_URL ? ` at ${withoutSecrets(env.AGENT_URL)}` : ''})`).join(', ');
}

/** Which browser origins and hosts are served (lib/http/origin.ts). */
function describeOrigins(config: Config): string {
  const extra = config.allowedOrigins.length ? ` + ${config.allowedOrigins.join(', ')}` : '';
  if (config.local) return `loopback only (localhost, 127.0.0.1, [::1])${extra}`;
  const own = config.publicUrl ?? 'the origin each request reaches (VERCEL is set)';
  return `any host; browser origins: ${own}${extra}`;
}

const port = readPort(process.env);
const env: Env = { ...process.env, PORT: String(port) };
const { config, auth, functions } = buildFunctions(env);
let url: string;
try {
  ({ url } = await startLocalServer({ port, functions }));
} catch (error) {
  if ((error as { code?: string }).code === 'EADDRINUSE') fail(`port ${port} is taken; set PORT to a free port (PORT=3001 npm start).`);
  throw error;
}
// PORT=0 asked the system for a port: from here on the handlers know which (no request reached them before).
// A URL leaves out http's default port.
env.PORT = new URL(url).port || '80';

console.log(`agent-mcp listening on ${url}
  MCP endpoint   ${url}/mcp   (also ${url}/api/mcp)${config.publicUrl ? `; public URL ${config.publicUrl}/mcp` : ''}
  landing page   ${url}/
  store          ${env.UPSTASH_REDIS_REST_URL || env.KV_REST_API_URL ? 'Upstash (shared)' : 'memory (one process; set UPSTASH_REDIS_REST_URL to share state across instances)'}
  agents         ${describeAgents(env)}
  auth           ${describeAuth(auth)}
  origins        ${describeOrigins(config)}`);
