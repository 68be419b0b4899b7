/**
 * `npm run dev:signin`: the built-in authorization server tried on this machine (docs/oauth.md "Try it locally").
 * Starts the test suite's development OpenID provider (oidc-provider, test/support/oauth-server.ts; it signs
 * everyone in as alice, alice@example.com, without asking: never deploy it) with agent-mcp's app registered at it,
 * then `npm start` with the built-in authorization server pointed at it, and prints the variables it set, who may
 * sign in, and how a real client signs in. Ctrl-C stops both.
 *
 *   npm run dev:signin                                   # agent-mcp on :3000, the provider on :9000
 *   PORT=3100 SIGNIN_PROVIDER_PORT=9100 npm run dev:signin
 */

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { OAuthServer } from '../test/support/oauth-server.js';
import { newAuthServerKey } from './authz-key.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Who the development provider signs in, and so whom AUTH_SERVER_ALLOW lets in. */
export const DEV_EMAIL = 'alice@example.com';
/** agent-mcp's app at the provider (AUTH_SERVER_CLIENT_ID); its secret is made fresh on each run. */
const CLIENT_ID = 'agent-mcp-local';

function fail(message: string): never {
  console.error(`dev:signin: ${message}`);
  process.exit(1);
}

function readPort(name: string, fallback: number): number {
  const raw = process.env[name] ?? String(fallback);
  if (!/^\d+$/.test(raw) || Number(raw) > 65_535) fail(`${name} must be a port number (0-65535), got "${raw}".`);
  return Number(raw);
}

// The provider must know agent-mcp's callback before it starts, so agent-mcp's port is fixed (not 0) here.
const port = readPort('PORT', 3000);
if (port === 0) fail('PORT must name a port: the provider registers http://localhost:<PORT>/oauth/callback before agent-mcp starts.');
const origin = `http://localhost:${port}`;
const mcpUrl = `${origin}/mcp`;
const secret = randomBytes(24).toString('base64url');

// oidc-provider warns, as it loads and starts, against deploying it as it runs here (on Node 20, with its in-memory
// store and keys): this never deploys it, and the first line below says so in our words.
const warn = console.warn;
console.warn = (...args: unknown[]) => { if (!String(args[0]).includes('oidc-provider WARNING')) warn(...args); };
const { startOAuthServer } = await import('../test/support/oauth-server.js');
let provider: OAuthServer;
try {
  provider = await startOAuthServer({
    scopes: [],
    email: DEV_EMAIL,
    port: readPort('SIGNIN_PROVIDER_PORT', 9000),
    clients: [{
      client_id: CLIENT_ID, client_secret: secret, redirect_uris: [`${origin}/oauth/callback`],
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
    }],
  });
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
  fail('the provider\'s port is taken; set SIGNIN_PROVIDER_PORT to a free one (0 for any).');
} finally {
  console.warn = warn;
}

/** What the built-in authorization server needs (docs/configuration.md), as this run sets it. */
const variables: Record<string, string> = {
  AUTH_SERVER_KEY: newAuthServerKey(),
  AUTH_SERVER_PROVIDER: 'oidc',
  AUTH_SERVER_OIDC_ISSUER: provider.issuer,
  AUTH_SERVER_CLIENT_ID: CLIENT_ID,
  AUTH_SERVER_CLIENT_SECRET: secret,
  AUTH_SERVER_ALLOW: DEV_EMAIL,
};

console.log(`dev:signin: a development OpenID provider on ${provider.issuer} (it signs everyone in as alice, ${DEV_EMAIL}, without asking: never deploy it),
  with agent-mcp registered there as ${CLIENT_ID}, callback ${origin}/oauth/callback
dev:signin: npm start with the built-in authorization server, these variables set (the key and secret are new on each run):
${Object.entries(variables).map(([name, value]) => `  ${name}='${value}'`).join('\n')}`);

const server = spawn(process.execPath, ['--import', 'tsx', 'scripts/serve.ts'], {
  cwd: ROOT,
  env: { ...process.env, ...variables, PORT: String(port) },
  stdio: ['ignore', 'pipe', 'inherit'],
});

/** After npm start's own lines (its ready line, then what is on, written just after): how to sign in. */
let ready = false;
let quiet: NodeJS.Timeout | undefined;
server.stdout!.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk);
  if (quiet) quiet.refresh();
  if (ready || !String(chunk).includes('agent-mcp ready:')) return;
  ready = true;
  quiet = setTimeout(howToSignIn, 300);
});

function howToSignIn() {
  console.log(`
dev:signin: sign in as ${DEV_EMAIL} (AUTH_SERVER_ALLOW) with a real client; agent-mcp shows its consent page, the provider signs you in:
  npx mcp-remote ${mcpUrl}
      a stdio bridge, as Claude Desktop uses it: it opens your browser, then serves the tools on stdin/stdout
  npx -y --loglevel=error -p node@22 -p @modelcontextprotocol/inspector@latest mcp-inspector
      the Inspector: add ${mcpUrl} (Streamable HTTP), connect, approve, then list and call the tools;
      the same command with --cli ${mcpUrl} --method tools/list signs in from a terminal
dev:signin: Ctrl-C stops agent-mcp and the provider`);
}

let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  if (server.exitCode === null) server.kill('SIGTERM');
  await provider.close();
  process.exit(code);
}
server.on('exit', (code) => { void stop(code ?? 1); });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => { void stop(0); });
