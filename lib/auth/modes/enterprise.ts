/**
 * Enterprise sign-in (AUTH_ENTERPRISE_IDPS, docs/oauth.md "Enterprise sign-in"): a client redeems an ID-JAG from an
 * enterprise identity provider at the built-in authorization server (lib/auth/authorization-server/enterprise/) and
 * gets that server's access token, so its tokens are the built-in server's row's to recognise and verify, and end in
 * the same principal, kind `authorization-server`. This row recognises nothing of its own: it reads and checks the
 * variable with the others at start-up, says so in the start-up line, and is a flag beside the built-in server in the
 * health probe and mcp.json (`enterprise: true`).
 */

import { ENTERPRISE_KEY_SETTINGS, readEnterpriseIdps } from '../authorization-server/enterprise/config.js';
import { discoverJwksUri } from '../keys.js';
import { authorizationServerMode } from './authorization-server.js';
import { JWT_WORDS } from './jwt.js';
import type { SignInMode } from './mode.js';

export const enterpriseMode: SignInMode = {
  kind: 'authorization-server',
  ...JWT_WORDS,
  read(env) {
    const idps = readEnterpriseIdps(env);
    // readEnterpriseIdps requires AUTH_SERVER_KEY, so the built-in server's row is on, and before this one.
    const builtIn = idps && authorizationServerMode.read(env);
    if (!idps || !builtIn) return undefined;
    return {
      kind: builtIn.kind,
      credentials: builtIn.credentials,
      recognises: () => false,
      verify: builtIn.verify,
      startup: `OAuth bearer tokens the built-in authorization server issues for ID-JAGs of ${idps.map((idp) => idp.issuer).join(', ')} (enterprise sign-in, AUTH_ENTERPRISE_IDPS)`,
      health: { mode: 'enterprise' },
      discovery: builtIn.discovery,
      besides: 'enterprise',
      // npm start: a provider whose metadata names another issuer, or no key set, would refuse every ID-JAG.
      async checkBeforeListening(signal) {
        for (const idp of idps.filter((entry) => !entry.jwksUrl)) {
          const found = await discoverJwksUri(idp.issuer, signal, ENTERPRISE_KEY_SETTINGS);
          if (typeof found !== 'string') return 'misconfigured' in found ? { misconfigured: found.misconfigured } : { unavailable: found.unavailable };
        }
        return undefined;
      },
    };
  },
};
