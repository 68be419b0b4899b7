/**
 * Access tokens of the built-in server: JWTs (RFC 9068) signed with AUTH_SERVER_KEY (ES256), verified at the MCP
 * endpoint by the same verifier as an external issuer's (lib/auth/verify.ts): `iss` is the deployment's origin,
 * `aud` the MCP URL the client asked for (RFC 8707), `sub` the person's principal. Short-lived: a refresh token,
 * not a revocation list, is what lasts. jose loads with the first token signed.
 */

import type { SigningKey } from '../signing-key.js';

export const ACCESS_TOKEN_TTL_SEC = 15 * 60;

export interface AccessGrant {
  issuer: string;
  subject: string;
  audience: string;
  clientId: string;
  scopes: string[];
}

export type SignAccessToken = (grant: AccessGrant) => Promise<string>;

export function createSigner(key: SigningKey): SignAccessToken {
  let signing: Promise<import('jose').CryptoKey | Uint8Array> | undefined;
  return async ({ issuer, subject, audience, clientId, scopes }) => {
    const jose = await import('jose');
    signing ??= jose.importJWK(key.privateJwk, key.privateJwk.alg);
    const now = Math.floor(Date.now() / 1000);
    return new jose.SignJWT({ client_id: clientId, scope: scopes.join(' ') })
      .setProtectedHeader({ alg: key.privateJwk.alg, kid: key.privateJwk.kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setSubject(subject)
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(now + ACCESS_TOKEN_TTL_SEC)
      .setJti(process.getBuiltinModule('node:crypto').randomUUID())
      .sign(await signing);
  };
}
