/**
 * `npm run authz-key`: a new ES256 signing key for the built-in authorization server, printed as the line to
 * configure (docs/oauth.md "The built-in authorization server"). Keep it secret: whoever holds it can sign tokens.
 */

import { generateKeyPairSync } from 'node:crypto';
import { pathToFileURL } from 'node:url';

/** A fresh AUTH_SERVER_KEY value: an ES256 private key as a JWK (also made by `npm run dev:signin`). */
export function newAuthServerKey() {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y, d } = privateKey.export({ format: 'jwk' });
  return JSON.stringify({ kty, crv, x, y, d });
}

const USAGE = `Usage: npm run authz-key
  Prints a new AUTH_SERVER_KEY line: an ES256 signing key for the built-in authorization server (docs/oauth.md).
  Keep it secret: whoever holds it can sign tokens.`;

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [arg] = process.argv.slice(2);
  if (arg === '--help' || arg === '-h' || arg === 'help') console.log(USAGE);
  else if (arg !== undefined) {
    console.error(`authz-key: unknown argument "${arg}"\n${USAGE}`);
    process.exitCode = 2;
  } else console.log(`AUTH_SERVER_KEY='${newAuthServerKey()}'`);
}
