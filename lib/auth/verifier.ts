/**
 * The one verifier of a bearer token (docs/architecture.md rule 10, one verifier, one principal): the mode on that
 * recognises the token verifies it (an API key by its prefix, a JWT by its issuer, lib/auth/modes); a token that is
 * a mode's by its shape while that mode is off is told so; any other goes to the mode that takes the rest (a JWT
 * mode), or is told what this server takes. Every mode ends in the same Principal, of its kind.
 */

import { keyPrefixOf } from '../server/principal-key.js';
import { unverifiedClaims } from './modes/jwt.js';
import { SIGN_IN_MODES, type ActiveMode, type SignInMode } from './modes/index.js';
import type { PresentedToken, TokenContext } from './modes/mode.js';
import type { Verification } from './verify.js';

/** Verifies a presented token against the request's audiences and origin. */
export type VerifyBearer = (token: string, context: TokenContext) => Promise<Verification>;

function presented(text: string): PresentedToken {
  let claims: ReturnType<PresentedToken['claims']> | null = null;
  return { text, claims: () => (claims === null ? (claims = unverifiedClaims(text)) : claims) };
}

/** The verifier of a deployment's modes; `table` is every mode there is, on or off. */
export function createBearerVerifier(modes: readonly ActiveMode[], table: readonly SignInMode[] = SIGN_IN_MODES): VerifyBearer {
  // A mode whose principals key state behind a prefix owns that namespace: no other mode's subject may enter it.
  const namespaces = table.flatMap((m) => (keyPrefixOf(m.kind) ? [{ prefix: keyPrefixOf(m.kind), name: m.principalName }] : []));
  const fallback = modes.find((m) => m.fallback);
  const takes: Verification = { ok: false, description: `This server accepts only ${[...new Set(modes.map((m) => m.credentials))].join(' or ')}.` };
  const mine = (token: PresentedToken, origin: string): ActiveMode | Verification | undefined => {
    const active = modes.find((m) => m.recognises(token, origin));
    if (active) return active;
    const off = table.find((m) => m.owns?.(token));
    return off?.off ? { ok: false, description: off.off } : undefined;
  };
  return async (text, context) => {
    const token = presented(text);
    const found = mine(token, context.origin) ?? fallback;
    if (!found) return takes;
    if ('ok' in found) return found;
    const result = await found.verify(text, context);
    if (!result.ok || keyPrefixOf(result.principal.kind)) return result;
    const taken = namespaces.find((n) => result.principal.subject.startsWith(n.prefix));
    return taken ? { ok: false, description: `The token's sub claim names ${taken.name}.` } : result;
  };
}
