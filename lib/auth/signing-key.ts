/**
 * The built-in authorization server's signing key (AUTH_SERVER_KEY): one ES256 private key as a JWK, read and
 * checked at start-up (node:crypto parses it, so a key off the P-256 curve or a truncated one is refused there).
 * The MCP endpoint needs only its public half, to verify the tokens the built-in server signs; the server signs
 * with the whole key. Its `kid` is the RFC 7638 thumbprint, so the same key always has the same id.
 */

export const SIGNING_KEY_VARIABLE = 'AUTH_SERVER_KEY';
export const SIGNING_ALGORITHM = 'ES256';

/** An EC P-256 key as a JWK: the public coordinates, and `d` when private. */
export interface EcJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  d?: string;
}

export interface SigningKey {
  /** The private JWK, with `kid` and `alg`. */
  privateJwk: EcJwk & { d: string; kid: string; alg: string };
  /** The public JWK as the JWKS publishes it. */
  publicJwk: EcJwk & { kid: string; alg: string; use: 'sig' };
}

const SHAPE = 'an ES256 private key as a JWK ({"kty":"EC","crv":"P-256","x":…,"y":…,"d":…}); make one with `npm run authz-key`';
const COORDINATE = /^[A-Za-z0-9_-]{43}$/;

/** The key in AUTH_SERVER_KEY, or a TypeError naming the variable. */
export function readSigningKey(raw: string): SigningKey {
  let jwk: Record<string, unknown>;
  try {
    jwk = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new TypeError(`${SIGNING_KEY_VARIABLE} must be ${SHAPE}: it is not JSON.`);
  }
  const { kty, crv, x, y, d } = jwk ?? {};
  if (kty !== 'EC' || crv !== 'P-256') throw new TypeError(`${SIGNING_KEY_VARIABLE} must be ${SHAPE}: kty must be "EC" and crv "P-256".`);
  if (![x, y, d].every((part) => typeof part === 'string' && COORDINATE.test(part))) {
    throw new TypeError(`${SIGNING_KEY_VARIABLE} must be ${SHAPE}: x, y and d must each be 43 base64url characters (a public key alone cannot sign).`);
  }
  const crypto = process.getBuiltinModule('node:crypto');
  try {
    crypto.createPrivateKey({ key: { kty, crv, x, y, d } as import('node:crypto').JsonWebKey, format: 'jwk' });
  } catch {
    throw new TypeError(`${SIGNING_KEY_VARIABLE} must be ${SHAPE}: node:crypto does not accept it as a P-256 key.`);
  }
  const pub = { kty: 'EC' as const, crv: 'P-256' as const, x: x as string, y: y as string };
  // RFC 7638 §3.2: the required members in lexicographic order, no whitespace.
  const kid = crypto.createHash('sha256').update(JSON.stringify({ crv: pub.crv, kty: pub.kty, x: pub.x, y: pub.y })).digest('base64url');
  return {
    privateJwk: { ...pub, d: d as string, kid, alg: SIGNING_ALGORITHM },
    publicJwk: { ...pub, kid, alg: SIGNING_ALGORITHM, use: 'sig' },
  };
}
