/**
 * Sign-in by an external OAuth authorization server (AUTH_ISSUER, docs/oauth.md): its JWTs, verified against its keys
 * (AUTH_JWKS_URL, or the `jwks_uri` of its metadata); the principal is the token's `sub`, kind `issuer`.
 */

import { readIssuerConfig } from '../config.js';
import { discoverJwksUri } from '../keys.js';
import { JWT_WORDS, jwtMode } from './jwt.js';
import type { SignInMode } from './mode.js';

export const issuerMode: SignInMode = {
  kind: 'issuer',
  ...JWT_WORDS,
  read(env) {
    const config = readIssuerConfig(env);
    if (!config?.issuer) return undefined;
    const issuer = config.issuer;
    return jwtMode('issuer', config, {
      startup: `OAuth bearer tokens from ${issuer}`,
      // It answers when its JWKS (AUTH_JWKS_URL) does, or metadata that names it with a key set (keys.ts).
      health: config.jwksUrl
        ? { mode: 'issuer', issuer: { name: issuer, urls: [config.jwksUrl] } }
        : { mode: 'issuer', issuer: { name: issuer, urls: [], discover: (signal) => discoverJwksUri(issuer, signal) } },
      // Metadata naming another issuer (a trailing slash is enough) would let no token verify: npm start stops.
      async checkBeforeListening(signal) {
        if (config.jwksUrl) return undefined;
        const found = await discoverJwksUri(issuer, signal);
        return typeof found === 'string' ? undefined : found;
      },
    });
  },
};
