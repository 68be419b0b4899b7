/**
 * A development authorization server for trying OAuth locally (README "Authentication (OAuth 2.1)"): the test
 * suite's oidc-provider on http://localhost:PORT (default 9000), issuing JWT access tokens for any resource,
 * with dynamic client registration and PKCE. It signs everyone in as `alice` without asking: never deploy it.
 *
 *   npx tsx test/support/dev-oauth-server.ts
 */

import { startOAuthServer } from './oauth-server.js';

const port = Number(process.env.PORT ?? 9000);
const scopes = (process.env.AUTH_SCOPES ?? 'agents:chat').split(/[\s,]+/).filter(Boolean);
const { issuer } = await startOAuthServer({ scopes, port });
console.log(`development authorization server on ${issuer} (everyone signs in as alice; scopes: ${scopes.join(' ')})
  run agent-mcp against it:  AUTH_ISSUER=${issuer} AUTH_SCOPES="${scopes.join(' ')}" npm start`);
