/**
 * The one verifier of a bearer token (docs/architecture.md, one verifier, one principal): a token with the API key
 * prefix is checked as a key (MCP_API_KEYS), anything else as a JWT from AUTH_ISSUER; both end in the same
 * Principal. Whichever mode is off refuses its kind of token with a sentence saying what this server takes.
 */

import type { Principal } from '../server/context.js';
import { isApiKeyClaim } from './api-key.js';
import { createApiKeyCheck, KEY_SUBJECT_PREFIX, type ApiKeys } from './api-keys.js';
import type { Verification, VerifyToken } from './verify.js';

/** A JWT may not claim a key's subject, or it would share that key's state. */
const claimsKeySubject = (principal: Principal) => principal.subject.startsWith(KEY_SUBJECT_PREFIX);

const NO_KEYS: Verification = { ok: false, description: 'This server accepts no API keys.' };
const KEYS_ONLY: Verification = { ok: false, description: 'This server accepts only API keys.' };
const RESERVED: Verification = { ok: false, description: 'The token\'s sub claim names an API key\'s principal.' };

/** The verifier of a deployment: `jwt` when AUTH_ISSUER or AUTH_SERVER_KEY is set, `keys` when MCP_API_KEYS is. */
export function createBearerVerifier(jwt: VerifyToken | undefined, keys: ApiKeys | undefined): VerifyToken {
  const checkKey = keys && createApiKeyCheck(keys);
  return async (token, audiences, issuer) => {
    if (isApiKeyClaim(token)) return checkKey ? checkKey(token) : NO_KEYS;
    if (!jwt) return KEYS_ONLY;
    const result = await jwt(token, audiences, issuer);
    return result.ok && claimsKeySubject(result.principal) ? RESERVED : result;
  };
}
