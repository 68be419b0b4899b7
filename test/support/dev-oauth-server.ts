/**
 * A development authorization server for trying OAuth locally (docs/oauth.md "Authentication (OAuth 2.1)"): the test
 * suite's oidc-provider on http://localhost:PORT (default 9000), issuing JWT access tokens (and refresh tokens
 * to clients that register for them) for any resource, with dynamic client registration and PKCE. It accepts
 * the registrations of the MCP Inspector, mcp-remote and the SDKs. It signs everyone in as `alice` without
 * asking: never deploy it.
 *
 *   npx tsx test/support/dev-oauth-server.ts               # http://localhost:9000
 *   PORT=9100 AUTH_SCOPES="agents:chat admin" npx tsx test/support/dev-oauth-server.ts
 */

import { startOAuthServer } from './oauth-server.js';

const port = Number(process.env.PORT ?? 9000);
const scopes = (process.env.AUTH_SCOPES ?? 'agents:chat').split(/[\s,]+/).filter(Boolean);
try {
  const { issuer } = await startOAuthServer({ scopes, port });
  console.log(`development authorization server on ${issuer} (everyone signs in as alice; scopes: ${scopes.join(' ')})
  run agent-mcp against it:  AUTH_ISSUER=${issuer} AUTH_SCOPES="${scopes.join(' ')}" npm start`);
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
  console.error(`dev-oauth-server: port ${port} is taken; set PORT to another one, e.g. PORT=9100 npx tsx test/support/dev-oauth-server.ts`);
  process.exit(1);
}
