/**
 * `npm run authz-key`: a new ES256 signing key for the built-in authorization server, printed as the line to
 * configure (docs/oauth.md "The built-in authorization server"). Keep it secret: whoever holds it can sign tokens.
 */

import { generateKeyPairSync } from 'node:crypto';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const { kty, crv, x, y, d } = privateKey.export({ format: 'jwk' });
console.log(`AUTH_SERVER_KEY='${JSON.stringify({ kty, crv, x, y, d })}'`);
