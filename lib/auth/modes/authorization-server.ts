/**
 * Sign-in by the built-in authorization server (AUTH_SERVER_KEY, lib/auth/authorization-server/, docs/oauth.md): the
 * JWTs it signs with that key, whose issuer is the deployment's own public origin; nothing to fetch, so nothing to
 * probe. The principal is the token's `sub` (`github:<id>`, `oidc:<sub>`), kind `authorization-server`.
 */

import { readBuiltInConfig } from '../config.js';
import { SIGNING_KEY_VARIABLE } from '../signing-key.js';
import { JWT_WORDS, jwtMode } from './jwt.js';
import type { SignInMode } from './mode.js';

export const authorizationServerMode: SignInMode = {
  kind: 'authorization-server',
  ...JWT_WORDS,
  read(env) {
    const config = readBuiltInConfig(env);
    return config && jwtMode('authorization-server', config, {
      startup: `OAuth bearer tokens from the built-in authorization server at this deployment's origin (${SIGNING_KEY_VARIABLE})`,
      health: { mode: 'built-in' },
    });
  },
};
