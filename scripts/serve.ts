/**
 * `npm start`: the deployment's functions on http://localhost:PORT. The whole configuration is read and checked
 * before the server listens: a bad setting stops start-up with one line naming the variable. Once it listens, the
 * first line says where it serves, then a few short lines what is on (lib/observe/startup.ts); MCP_LOG=debug adds
 * every setting and bound.
 */

import { createMcpHandler } from '../api/mcp.js';
import { createDefaultApp } from '../lib/app.js';
import { readSignIn } from '../lib/auth/modes/index.js';
import { createProtectedResourceHandler } from '../lib/auth/metadata.js';
import { createAuthorizationServerHandler } from '../lib/auth/authorization-server/handler.js';
import { createDiscoveryHandler } from '../lib/discovery/documents.js';
import { describeStartupError, type FetchHandler } from '../lib/http/configured.js';
import { readLogLevel } from '../lib/observe/request-log.js';
import { formatStartup, type StartupReport } from '../lib/observe/startup.js';
import { usagePageOf } from '../lib/usage/page/function.js';
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
function buildFunctions(env: Env): { startup?: StartupReport; usageAccess: string; functions: Record<string, FetchHandler> } {
  try {
    const app = createDefaultApp(env);
    // The usage page reads this process's store and signs callers in as /mcp does; loopback needs no sign-in here.
    const usage = usagePageOf(app, env, true);
    return {
      startup: app.startup,
      usageAccess: usage.access,
      functions: {
        '/api/usage': usage.handler,
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

/** How long start-up waits for a sign-in mode's check (the issuer's metadata) before it goes on without it. */
const SIGN_IN_CHECK_MS = 5_000;

/**
 * Each sign-in mode's check before listening (lib/auth/modes): AUTH_ISSUER against the issuer's own metadata, whose
 * naming another issuer (a trailing slash is enough) stops start-up, since no token could ever verify; an issuer
 * that does not answer yet only warns.
 */
async function checkSignIn(env: Env): Promise<void> {
  for (const mode of readSignIn(env)) {
    const found = await mode.checkBeforeListening?.(AbortSignal.timeout(SIGN_IN_CHECK_MS));
    if (found === undefined) continue;
    if ('misconfigured' in found) fail(`configuration error: ${found.misconfigured}`);
    console.warn(`agent-mcp: ${found.unavailable}; tokens are answered 503 until it does.`);
  }
}

// A reader of these lines that goes away (`npm start | head -1`) loses them, not the server: with no listener, the
// failed write is an 'error' event that ends the process (under the tsx CLI even console.log's own guard misses it).
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

const port = readPort(process.env);
const env: Env = { ...process.env, PORT: String(port) };
const { startup, usageAccess, functions } = buildFunctions(env);
await checkSignIn(env);
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

// What a user needs first: where to point a client, and where to look.
console.log(`agent-mcp ready: ${url}/mcp (landing page ${url}/)`);
if (startup) {
  startup.summary.push(['usage', `${url}/usage (${usageAccess})`]);
  console.log(formatStartup(startup, readLogLevel(env) === 'debug').join('\n'));
}
