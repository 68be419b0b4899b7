/**
 * `npm run authz-key`: a new ES256 signing key for the built-in authorization server, printed as the line to
 * configure (docs/oauth.md "The built-in authorization server"). Keep it secret: whoever holds it can sign tokens.
 * `next` and `promote` are the two steps of a rotation (docs/oauth.md "Rotating the signing key"): the settings go to
 * stdout, the steps to stderr, so the output can be appended to an env file as it is.
 */

import { generateKeyPairSync } from 'node:crypto';
import { pathToFileURL } from 'node:url';

/** A fresh AUTH_SERVER_KEY value: an ES256 private key as a JWK (also made by `npm run dev:signin`). */
export function newAuthServerKey() {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y, d } = privateKey.export({ format: 'jwk' });
  return JSON.stringify({ kty, crv, x, y, d });
}

/** Access tokens live 15 minutes (lib/auth/authorization-server/signer.ts); sign-ins in progress 10. */
const OLD_KEY_KEPT = '15 minutes';

const USAGE = `Usage: npm run authz-key
  Prints a new AUTH_SERVER_KEY line: an ES256 signing key for the built-in authorization server (docs/oauth.md).
  Keep it secret: whoever holds it can sign tokens.
Rotating it (docs/oauth.md "Rotating the signing key"):
  npm run authz-key -- next     step 1: a new AUTH_SERVER_NEXT_KEY line, published in the JWKS before it signs
  npm run authz-key -- promote  step 2: with AUTH_SERVER_KEY and AUTH_SERVER_NEXT_KEY in the environment, the settings
                                that make the next key sign and keep the current one as AUTH_SERVER_OLD_KEY`;

const NEXT_STEPS = `Rotating the signing key (docs/oauth.md "Rotating the signing key"):
  1. now: set AUTH_SERVER_NEXT_KEY to the value above (keep AUTH_SERVER_KEY as it is) and redeploy. It is published,
     not yet signing, so every instance and every verifier that caches the JWKS (5 minutes) knows it first.
  2. at least 5 minutes later: with both variables in the environment, run \`npm run authz-key -- promote\`, set what it
     prints and redeploy.`;

const PROMOTE_STEPS = `  2. set the three settings above (AUTH_SERVER_NEXT_KEY is removed) and redeploy: the new key signs, the old one is still
     published and accepted, and so is everything sealed under it.
  3. at least ${OLD_KEY_KEPT} later, once the tokens it signed have expired, remove AUTH_SERVER_OLD_KEY and redeploy.
     Clients that registered (RFC 7591) before step 2 then register again; keep the old key longer if they should not.`;

/** The JWK in `name`, or a sentence naming the variable. */
function keyFrom(env, name) {
  const raw = env[name]?.trim();
  if (!raw) return { error: `${name} is not set` };
  try {
    const jwk = JSON.parse(raw);
    if (jwk?.kty === 'EC' && jwk.crv === 'P-256' && typeof jwk.d === 'string') return { raw };
  } catch { /* below */ }
  return { error: `${name} is not an ES256 private key as a JWK` };
}

/** The settings of step 2, or why not. */
export function promote(env) {
  const current = keyFrom(env, 'AUTH_SERVER_KEY');
  const next = keyFrom(env, 'AUTH_SERVER_NEXT_KEY');
  const error = current.error ?? next.error;
  if (error) return { error: `authz-key promote: ${error}; run it with AUTH_SERVER_KEY and AUTH_SERVER_NEXT_KEY in the environment.` };
  if (current.raw === next.raw) return { error: 'authz-key promote: AUTH_SERVER_NEXT_KEY is the same key as AUTH_SERVER_KEY.' };
  return { lines: [`AUTH_SERVER_KEY='${next.raw}'`, `AUTH_SERVER_OLD_KEY='${current.raw}'`, 'AUTH_SERVER_NEXT_KEY='] };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [arg, extra] = process.argv.slice(2);
  if (arg === '--help' || arg === '-h' || arg === 'help') console.log(USAGE);
  else if (extra !== undefined || (arg !== undefined && arg !== 'next' && arg !== 'promote')) {
    console.error(`authz-key: unknown argument "${extra ?? arg}"\n${USAGE}`);
    process.exitCode = 2;
  } else if (arg === 'next') {
    console.log(`AUTH_SERVER_NEXT_KEY='${newAuthServerKey()}'`);
    console.error(NEXT_STEPS);
  } else if (arg === 'promote') {
    const result = promote(process.env);
    if (result.error) {
      console.error(result.error);
      process.exitCode = 2;
    } else {
      console.log(result.lines.join('\n'));
      console.error(PROMOTE_STEPS);
    }
  } else console.log(`AUTH_SERVER_KEY='${newAuthServerKey()}'`);
}
