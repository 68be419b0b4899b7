/**
 * An ID-JAG checked as the Identity Assertion JWT Authorization Grant (draft-ietf-oauth-identity-assertion-authz-grant
 * §4.4.1, RFC 7521 §5.2) and MCP Enterprise-Managed Authorization §5.1, §7.4, §7.6 ask: `typ` oauth-id-jag+jwt; an
 * `iss` AUTH_ENTERPRISE_IDPS names, and a signature by that provider's keys, asymmetric algorithms only; `aud` this
 * server's issuer; `exp`, `iat` (and `nbf` when present) within 30 s of skew, and a lifetime of at most an hour, so
 * the record of its single use is short too; a `sub`, a `jti` and a `client_id`. The provider's keys are fetched as
 * an external issuer's are (lib/auth/keys.ts: jose's remote key set, cached, refetched for an unknown `kid` at most
 * once per cooldown, within a timeout, no redirects); jose loads with the first assertion. Refusals are fixed
 * sentences; nothing of the assertion is echoed or logged.
 */

import { ASYMMETRIC } from '../../config.js';
import { createKeyLoader, type LoadKeys } from '../../keys.js';
import { unverifiedClaims } from '../../modes/jwt.js';
import { ENTERPRISE_KEY_SETTINGS, type EnterpriseIdp } from './config.js';

/** The media type an ID-JAG's `typ` header names (draft §3.1, §8.1). */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';
export const SKEW_SEC = 30;
export const MAX_LIFETIME_SEC = 3600;
/** OpenID Connect Core §2: a `sub` is at most 255 ASCII characters; a `jti` is held to the same. */
const MAX_ID_CHARS = 255;

export interface IdJag {
  idp: EnterpriseIdp;
  sub: string;
  jti: string;
  clientId: string;
  /** Seconds since the epoch. */
  exp: number;
  scope?: string;
  resource?: string;
}

export type AssertionCheck =
  | { ok: true; grant: IdJag }
  /** invalid_grant, with a fixed sentence. */
  | { ok: false; description: string }
  /** The provider's keys cannot be had now (or its metadata names another issuer): for the operator's log. */
  | { ok: false; unavailable: string };

/** jose codes of a failed key fetch, as lib/auth/verify.ts reads them. */
const KEY_FETCH_FAILURES = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JOSE_GENERIC', 'ERR_JWKS_INVALID']);

function describe(code: string | undefined, claim?: string, reason?: string): string {
  switch (code) {
    case 'ERR_JWT_EXPIRED': return 'The assertion has expired.';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'typ') return `The assertion is not an ID-JAG (its typ must be ${ID_JAG_TYP}).`;
      if (reason === 'missing') return `The assertion has no ${claim} claim.`;
      if (claim === 'aud') return 'The assertion was not issued for this authorization server.';
      if (claim === 'nbf') return 'The assertion is not valid yet.';
      if (claim === 'iat') return 'The assertion was issued in the future or too long ago.';
      return `The assertion's ${claim ?? 'claims'} claim is not acceptable.`;
    case 'ERR_JWKS_NO_MATCHING_KEY': return 'The assertion was signed with a key its identity provider does not publish.';
    case 'ERR_JOSE_ALG_NOT_ALLOWED': return 'The assertion uses a signing algorithm this server does not accept.';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED': return 'The assertion signature is invalid.';
    default: return 'The assertion is not a valid signed JWT.';
  }
}

const text = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** A checker of ID-JAGs from `idps`; each provider's keys load with its first assertion. */
export function createAssertionChecker(idps: readonly EnterpriseIdp[]) {
  const providers = new Map<string, { idp: EnterpriseIdp; keys: LoadKeys }>(idps.map((idp) => [idp.issuer, {
    idp,
    keys: createKeyLoader({ issuer: idp.issuer, ...(idp.jwksUrl ? { jwksUrl: idp.jwksUrl } : {}), scopes: [], algorithms: ASYMMETRIC, clockToleranceSec: SKEW_SEC }, ENTERPRISE_KEY_SETTINGS),
  }]));

  /** Checks `assertion` for this server, whose issuer is `audience`. Never throws. */
  return async function check(assertion: string, audience: string): Promise<AssertionCheck> {
    // The issuer picks the keys; nothing else of the unverified payload is believed.
    const iss = unverifiedClaims(assertion)?.iss;
    const provider = typeof iss === 'string' ? providers.get(iss) : undefined;
    if (!provider) return { ok: false, description: 'The assertion is not from an identity provider this server trusts.' };
    const keys = await provider.keys();
    if ('unavailable' in keys) return { ok: false, unavailable: keys.unavailable };
    if ('misconfigured' in keys) return { ok: false, unavailable: keys.misconfigured };
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await keys.jose.jwtVerify(assertion, keys.getKey, {
        issuer: provider.idp.issuer,
        audience,
        typ: ID_JAG_TYP,
        algorithms: ASYMMETRIC,
        clockTolerance: SKEW_SEC,
        maxTokenAge: MAX_LIFETIME_SEC,
        requiredClaims: ['exp', 'iat', 'sub', 'jti', 'client_id'],
      }));
    } catch (error) {
      const { code, claim, reason } = error as { code?: string; claim?: string; reason?: string };
      if (code === undefined || KEY_FETCH_FAILURES.has(code)) return { ok: false, unavailable: `${provider.idp.issuer}: its keys could not be fetched (${String(error)})` };
      return { ok: false, description: describe(code, claim, reason) };
    }
    const { sub, jti, client_id: clientId, exp, iat, scope, resource } = payload;
    if (!text(sub) || sub.length > MAX_ID_CHARS) return { ok: false, description: `The assertion's sub must be a string of 1 to ${MAX_ID_CHARS} characters.` };
    if (!text(jti) || jti.length > MAX_ID_CHARS) return { ok: false, description: `The assertion's jti must be a string of 1 to ${MAX_ID_CHARS} characters.` };
    if (!text(clientId)) return { ok: false, description: 'The assertion\'s client_id must be a string.' };
    if ((exp as number) - (iat as number) > MAX_LIFETIME_SEC) return { ok: false, description: `The assertion lives longer than ${MAX_LIFETIME_SEC} seconds.` };
    if (scope !== undefined && typeof scope !== 'string') return { ok: false, description: 'The assertion\'s scope must be a space-separated string.' };
    if (resource !== undefined && typeof resource !== 'string') return { ok: false, description: 'The assertion\'s resource must be a string.' };
    return {
      ok: true,
      grant: { idp: provider.idp, sub, jti, clientId, exp: exp as number, ...(scope !== undefined ? { scope } : {}), ...(resource !== undefined ? { resource } : {}) },
    };
  };
}

export type CheckAssertion = ReturnType<typeof createAssertionChecker>;
