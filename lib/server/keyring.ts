/**
 * The server's MAC key: MCP_STATE_SECRET, shared by every instance of a deployment, or without it a random key
 * of this process (tokens then verify only on the instance that issued them). Every identifier the server hands
 * a client and later trusts (session ids, conversation ids, ids of its requests to the client) is a MAC under
 * this key, each under its own label, so one kind of token can never pass for another.
 * node:crypto's HMAC, loaded on first use: synchronous and ~2 µs, where WebCrypto's goes through the thread pool.
 */

let nodeCrypto: Promise<typeof import('node:crypto')> | undefined;
const loadCrypto = () => (nodeCrypto ??= import('node:crypto'));

/** 128 bits: a MAC an attacker must guess, as long as a random UUID. */
const MAC_CHARS = 22;

export interface Keyring {
  /** A base64url MAC of `parts` under `label`; parts are length-prefixed, so no two part lists collide. */
  mac(label: string, ...parts: string[]): Promise<string>;
  /** A fresh unguessable token bound to `binding`: `<nonce>.<mac>`, visible ASCII. */
  issue(label: string, ...binding: string[]): Promise<string>;
  /** True when `token` is one `issue(label, ...binding)` made under this key; false for anything else. */
  check(label: string, token: unknown, ...binding: string[]): Promise<boolean>;
}

const TOKEN = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;

export function createKeyring(secret: string | undefined): Keyring {
  let key: Buffer | undefined;
  const ring: Keyring = {
    async mac(label, ...parts) {
      const { createHmac, randomBytes } = await loadCrypto();
      key ??= secret === undefined ? randomBytes(32) : Buffer.from(secret, 'utf8');
      const hmac = createHmac('sha256', key).update(label);
      for (const part of parts) {
        // JSON.stringify escapes lone surrogates, so no client string makes two inputs share bytes.
        const bytes = Buffer.from(JSON.stringify(part), 'utf8');
        hmac.update(`${bytes.length}:`).update(bytes);
      }
      return hmac.digest('base64url').slice(0, MAC_CHARS);
    },
    async issue(label, ...binding) {
      const { randomBytes } = await loadCrypto();
      const nonce = randomBytes(16).toString('base64url');
      return `${nonce}.${await ring.mac(label, ...binding, nonce)}`;
    },
    async check(label, token, ...binding) {
      const match = typeof token === 'string' ? TOKEN.exec(token) : null;
      if (!match) return false;
      return sameMac(match[2]!, await ring.mac(label, ...binding, match[1]!));
    },
  };
  return ring;
}

/** Compares two MACs in constant time (both are short base64url strings). */
export function sameMac(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
