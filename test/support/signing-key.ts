/** Test support: a fresh AUTH_SERVER_KEY value (an ES256 private key as a JWK), as `npm run authz-key` makes one. */

import { generateKeyPairSync } from 'node:crypto';

export function newSigningKey(): string {
  const { kty, crv, x, y, d } = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  return JSON.stringify({ kty, crv, x, y, d });
}
