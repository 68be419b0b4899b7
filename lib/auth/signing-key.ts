/**
 * The built-in authorization server's signing keys: AUTH_SERVER_KEY, the one that signs, and for a rotation
 * (docs/oauth.md "Rotating the signing key") AUTH_SERVER_NEXT_KEY, published before it signs, and
 * AUTH_SERVER_OLD_KEY, the one that signed before, kept until what it signed has expired. Each is one ES256 private
 * key as a JWK, read and checked at start-up (node:crypto parses it, so a key off the P-256 curve or a truncated one
 * is refused there, naming its variable). All of them are published in the JWKS and verify tokens (jose picks by
 * `kid`); only AUTH_SERVER_KEY signs. A key's `kid` is its RFC 7638 thumbprint, so the same key always has the same id.
 */

export const SIGNING_KEY_VARIABLE = 'AUTH_SERVER_KEY';
export const NEXT_KEY_VARIABLE = 'AUTH_SERVER_NEXT_KEY';
export const OLD_KEY_VARIABLE = 'AUTH_SERVER_OLD_KEY';
export const SIGNING_ALGORITHM = 'ES256';

/** An EC P-256 key as a JWK: the public coordinates, and `d` when private. */
export interface EcJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  d?: string;
}

export type PublicJwk = EcJwk & { kid: string; alg: string; use: 'sig' };

export interface SigningKey {
  /** The private JWK, with `kid` and `alg`. */
  privateJwk: EcJwk & { d: string; kid: string; alg: string };
  /** The public JWK as the JWKS publishes it. */
  publicJwk: PublicJwk;
}

/** The keys of a deployment: the one that signs, and every key published and accepted, the signing one first. */
export interface SigningKeys {
  signing: SigningKey;
  accepted: SigningKey[];
}

const SHAPE = 'an ES256 private key as a JWK ({"kty":"EC","crv":"P-256","x":…,"y":…,"d":…}); make one with `npm run authz-key`';
const COORDINATE = /^[A-Za-z0-9_-]{43}$/;

/** The key in `variable` (AUTH_SERVER_KEY unless named), or a TypeError naming the variable. */
export function readSigningKey(raw: string, variable = SIGNING_KEY_VARIABLE): SigningKey {
  let jwk: Record<string, unknown>;
  try {
    jwk = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new TypeError(`${variable} must be ${SHAPE}: it is not JSON.`);
  }
  const { kty, crv, x, y, d } = jwk ?? {};
  if (kty !== 'EC' || crv !== 'P-256') throw new TypeError(`${variable} must be ${SHAPE}: kty must be "EC" and crv "P-256".`);
  if (![x, y, d].every((part) => typeof part === 'string' && COORDINATE.test(part))) {
    throw new TypeError(`${variable} must be ${SHAPE}: x, y and d must each be 43 base64url characters (a public key alone cannot sign).`);
  }
  const crypto = process.getBuiltinModule('node:crypto');
  try {
    crypto.createPrivateKey({ key: { kty, crv, x, y, d } as import('node:crypto').JsonWebKey, format: 'jwk' });
  } catch {
    throw new TypeError(`${variable} must be ${SHAPE}: node:crypto does not accept it as a P-256 key.`);
  }
  const pub = { kty: 'EC' as const, crv: 'P-256' as const, x: x as string, y: y as string };
  // RFC 7638 §3.2: the required members in lexicographic order, no whitespace.
  const kid = crypto.createHash('sha256').update(JSON.stringify({ crv: pub.crv, kty: pub.kty, x: pub.x, y: pub.y })).digest('base64url');
  return {
    privateJwk: { ...pub, d: d as string, kid, alg: SIGNING_ALGORITHM },
    publicJwk: { ...pub, kid, alg: SIGNING_ALGORITHM, use: 'sig' },
  };
}

/**
 * AUTH_SERVER_KEY with AUTH_SERVER_NEXT_KEY and AUTH_SERVER_OLD_KEY when set (the caller checked AUTH_SERVER_KEY is);
 * a TypeError names a variable whose key is malformed or repeats another's.
 */
export function readSigningKeys(env: Record<string, string | undefined>): SigningKeys {
  const signing = readSigningKey(env[SIGNING_KEY_VARIABLE]!);
  const accepted = [signing];
  const names = [SIGNING_KEY_VARIABLE];
  for (const variable of [NEXT_KEY_VARIABLE, OLD_KEY_VARIABLE]) {
    if (!env[variable]?.trim()) continue;
    const key = readSigningKey(env[variable]!, variable);
    const same = accepted.findIndex((other) => other.publicJwk.kid === key.publicJwk.kid);
    if (same >= 0) throw new TypeError(`${variable} holds the same key as ${names[same]}; a rotation needs a new key (npm run authz-key -- next).`);
    accepted.push(key);
    names.push(variable);
  }
  return { signing, accepted };
}
