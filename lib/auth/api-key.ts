/**
 * One API key (docs/api-keys.md): `agentmcp_` and 43 base64url characters, 32 random bytes. The prefix makes a
 * leaked key findable by secret scanners and lets the verifier tell a key from a JWT without parsing it; the
 * server keeps only the key's SHA-256, which is enough for 256 random bits (nothing to brute-force, so no slow hash).
 * node:crypto loads with the first key checked or minted, not at start (docs/architecture.md, cold start).
 */

/** What every key starts with; a bearer token with it is checked as a key, never as a JWT. */
export const API_KEY_PREFIX = 'agentmcp_';

/** The whole shape: the prefix, then 32 bytes in base64url without padding. */
const API_KEY_SHAPE = /^agentmcp_[A-Za-z0-9_-]{43}$/;

const crypto = () => process.getBuiltinModule('node:crypto');

/** True when a bearer token claims to be an API key (by its prefix), whatever the rest of it is. */
export const isApiKeyClaim = (token: string): boolean => token.startsWith(API_KEY_PREFIX);

/** True when `token` has exactly the shape of a key this server mints. */
export const hasApiKeyShape = (token: string): boolean => API_KEY_SHAPE.test(token);

/** A new key, from the system's random source. */
export function mintApiKey(): string {
  return `${API_KEY_PREFIX}${crypto().randomBytes(32).toString('base64url')}`;
}

/** The SHA-256 of a key: what MCP_API_KEYS holds (as hex) and what a presented key is compared by. */
export function apiKeyDigest(key: string): Buffer {
  return crypto().createHash('sha256').update(key).digest();
}

/** Compares two digests in time that does not depend on where they differ. */
export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && crypto().timingSafeEqual(a, b);
}
