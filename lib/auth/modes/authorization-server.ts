/**
 * Sign-in by the built-in authorization server (AUTH_SERVER_KEY, lib/auth/authorization-server/, docs/oauth.md): the
 * JWTs it signs with that key, whose issuer is the deployment's own public origin; nothing to fetch, so nothing to
 * probe. The principal is the token's `sub` (`github:<id>`, `oidc:<sub>`), kind `authorization-server`.
 */

import { readBuiltInConfig } from '../config.js';
import { NEXT_KEY_VARIABLE, OLD_KEY_VARIABLE, SIGNING_KEY_VARIABLE } from '../signing-key.js';
import { JWT_WORDS, jwtMode } from './jwt.js';
import type { SignInMode } from './mode.js';

export const authorizationServerMode: SignInMode = {
  kind: 'authorization-server',
  ...JWT_WORDS,
  read(env) {
    const config = readBuiltInConfig(env);
    // A rotation in progress is said, so that the operator remembers its next step (docs/oauth.md "Rotating the signing key").
    const rotation = [
      env[NEXT_KEY_VARIABLE]?.trim() ? `; ${NEXT_KEY_VARIABLE} published, not yet signing` : '',
      env[OLD_KEY_VARIABLE]?.trim() ? `; ${OLD_KEY_VARIABLE} still accepted: remove it once its tokens have expired (15 minutes after the switch)` : '',
    ].join('');
    return config && jwtMode('authorization-server', config, {
      startup: `OAuth bearer tokens from the built-in authorization server at this deployment's origin (${SIGNING_KEY_VARIABLE}${rotation})`,
      health: { mode: 'built-in' },
    });
  },
};
