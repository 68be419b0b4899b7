/**
 * What the modes whose credential is a JWT from an OAuth authorization server share (the external issuer, the built-in
 * server): a token is theirs when its unverified `iss` is their issuer; jose verifies it (lib/auth/verify.ts) and the
 * principal gets the mode's kind; mcp.json and the protected-resource metadata point a client to the issuer.
 */

import { resourceMetadataUrl } from '../../http/public-url.js';
import type { PrincipalKind } from '../../server/principal-key.js';
import { issuerFor, requireAudienceSource, type AuthConfig } from '../config.js';
import { createVerifier } from '../verify.js';
import { AUTH_TYPE, type ActiveMode, type PresentedToken } from './mode.js';

/** What a JWT mode's callers send, and whose principal a subject of its kind names. */
export const JWT_WORDS = { credentials: 'OAuth bearer tokens', principalName: 'a token\'s principal' } as const;

/** The payload of a compact JWS, unverified; undefined for anything else. Only ever used to pick a mode. */
export function unverifiedClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    return payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? payload as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

/** A JWT mode on with `config`; `rest` says how it describes itself. */
export function jwtMode(kind: PrincipalKind, config: AuthConfig, rest: Pick<ActiveMode, 'startup' | 'health' | 'checkBeforeListening'>): ActiveMode {
  const jwt = createVerifier(config);
  return {
    kind,
    credentials: JWT_WORDS.credentials,
    ...rest,
    oauth: config,
    recognises: (token: PresentedToken, origin: string) => token.claims()?.iss === issuerFor(config, origin),
    // With one JWT mode on (as every deployment today), a token from another issuer is refused as jose words it.
    fallback: true,
    async verify(token, { audiences, origin }) {
      const result = await jwt(token, audiences, issuerFor(config, origin));
      return result.ok ? { ok: true, principal: { kind, ...result.principal } } : result;
    },
    discovery: (origin) => ({
      type: AUTH_TYPE.oauth, resourceMetadata: resourceMetadataUrl(origin), authorizationServers: [issuerFor(config, origin)], scopes: config.scopes,
    }),
    checkServed: (served, env) => requireAudienceSource(config, served, env),
  };
}
