/**
 * Verifies a bearer JWT (OAuth 2.1 §5.2, RFC 9068) with jose: the signature against the issuer's keys,
 * asymmetric algorithms only (a symmetric `alg` would let anyone holding the public key sign), `iss`,
 * `aud` (RFC 8707: tokens for another resource are refused), `exp` and `nbf` with a small clock skew, and a
 * `sub`. Scopes come from `scope` (RFC 9068 §2.2.3) or `scp`. Results are values; a bad token never throws.
 */

import type { Principal } from '../server/context.js';
import type { AuthConfig } from './config.js';
import { createKeyLoader, type LoadKeys } from './keys.js';

/** The outcome of verifying one token. */
export type Verification =
  | { ok: true; principal: Principal }
  /** The token is not acceptable: 401 invalid_token. */
  | { ok: false; description: string }
  /** The issuer's keys cannot be had right now: the token may be fine, so no challenge (503). */
  | { ok: false; unavailable: string }
  /** The issuer's keys will not be had until AUTH_* changes: no challenge, and no "try again" either (500). */
  | { ok: false; misconfigured: string };

/** Verifies a token from `issuer` for one of the given audiences. */
export type VerifyToken = (token: string, audiences: string[], issuer: string) => Promise<Verification>;

/** jose codes of a failed JWKS fetch: a timeout, a non-200 or unparsable reply, an invalid key set. */
const KEY_FETCH_FAILURES = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JOSE_GENERIC', 'ERR_JWKS_INVALID']);

function scopesOf(payload: Record<string, unknown>): string[] {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}

/** A verifier for one configuration; keys load on the first token. */
export function createVerifier(config: AuthConfig, loadKeys: LoadKeys = createKeyLoader(config)): VerifyToken {
  return async (token, audiences, issuer) => {
    const keys = await loadKeys();
    if ('unavailable' in keys) return { ok: false, unavailable: keys.unavailable };
    if ('misconfigured' in keys) return { ok: false, misconfigured: keys.misconfigured };
    try {
      const { payload } = await keys.jose.jwtVerify(token, keys.getKey, {
        issuer,
        audience: config.audience ? [config.audience] : audiences,
        algorithms: config.algorithms,
        clockTolerance: config.clockToleranceSec,
        requiredClaims: ['exp', 'sub'],
      });
      const clientId = payload.client_id ?? payload.azp;
      return {
        ok: true,
        principal: { subject: payload.sub!, ...(typeof clientId === 'string' ? { clientId } : {}), scopes: scopesOf(payload) },
      };
    } catch (error) {
      const { code, claim, reason } = error as { code?: string; claim?: string; reason?: string };
      // jose's own JWKS fetch (a refresh) failing says nothing about the token.
      if (code === undefined || KEY_FETCH_FAILURES.has(code)) return { ok: false, unavailable: `the issuer's keys could not be fetched (${String(error)})` };
      return { ok: false, description: describe(code, claim, reason) };
    }
  };
}

/** A short reason for the challenge's error_description (RFC 6750 §3); never echoes the token. */
function describe(code: string, claim?: string, reason?: string): string {
  switch (code) {
    case 'ERR_JWT_EXPIRED': return 'The token has expired.';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (reason === 'missing') return `The token has no ${claim} claim.`;
      if (claim === 'aud') return 'The token was not issued for this resource.';
      if (claim === 'iss') return 'The token was not issued by this resource\'s authorization server.';
      if (claim === 'nbf') return 'The token is not valid yet.';
      return `The token's ${claim ?? 'claims'} claim is not acceptable.`;
    case 'ERR_JWKS_NO_MATCHING_KEY': return 'The token was signed with an unknown key.';
    case 'ERR_JOSE_ALG_NOT_ALLOWED': return 'The token uses a signing algorithm this server does not accept.';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED': return 'The token signature is invalid.';
    default: return 'The token is invalid.';
  }
}
