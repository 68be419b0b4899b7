/**
 * The server's MAC key: MCP_STATE_SECRET, shared by every instance of a deployment, or without it a random key
 * of this process (tokens then verify only on the instance that issued them). Every identifier the server hands
 * a client and later trusts (session ids, conversation ids, ids of its requests to the client) is a MAC under
 * this key, each under its own label, so one kind of token can never pass for another.
 * node:crypto's HMAC, loaded on first use: synchronous, where WebCrypto's goes through the thread pool. The key is a
 * KeyObject made once: given bytes, Node 24's createHmac makes one on every call (docs/performance.md "Issue 22 round 3: on Vercel's runtime").
 */

import type { KeyObject } from 'node:crypto';

/** node:crypto, loaded with the first MAC rather than at start. */
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

/** 128 bits: a MAC an attacker must guess, as long as a random UUID. */
const MAC_CHARS = 22;
const NONCE_BYTES = 16;
/** Nonces are cut from a block of random bytes filled for 256 of them at once, as crypto.randomUUID does. */
const NONCE_BLOCK_BYTES = 256 * NONCE_BYTES;

export interface Keyring {
  /** A base64url MAC of `parts` under `label`; parts are length-prefixed, so no two part lists collide. */
  mac(label: string, ...parts: string[]): Promise<string>;
  /** The same MAC, for a caller that cannot wait (an id made only when something reads it). */
  macNow(label: string, ...parts: string[]): string;
  /** A fresh unguessable token bound to `binding`: `<nonce>.<mac>`, visible ASCII. */
  issue(label: string, ...binding: string[]): Promise<string>;
  /** True when `token` is one `issue(label, ...binding)` made under this key; false for anything else. */
  check(label: string, token: unknown, ...binding: string[]): Promise<boolean>;
}

const TOKEN = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;

/**
 * The MAC of `input` under the key, made with the first MAC: node:crypto asked for once, not per MAC (asking
 * process.getBuiltinModule was 0.7% of a warm chat call's CPU; docs/performance.md "Issue 48: the warm call").
 */
function macOf(secret: string | undefined): (input: string) => string {
  const crypto = nodeCrypto();
  const key: KeyObject = crypto.createSecretKey(secret === undefined ? crypto.randomBytes(32) : Buffer.from(secret, 'utf8'));
  const { createHmac } = crypto;
  return (input) => createHmac('sha256', key).update(input, 'utf8').digest('base64url').slice(0, MAC_CHARS);
}

export function createKeyring(secret: string | undefined): Keyring {
  let mac: ((input: string) => string) | undefined;
  let nonces: Buffer | undefined;
  let used = NONCE_BLOCK_BYTES;
  const macNow = (label: string, ...parts: string[]): string => {
    // The bytes hashed are the label, then each part as `<byte length>:<JSON>`, in one update. JSON.stringify escapes
    // lone surrogates, so no client string makes two inputs share bytes.
    let input = label;
    for (const part of parts) {
      const json = JSON.stringify(part);
      input += `${Buffer.byteLength(json, 'utf8')}:${json}`;
    }
    return (mac ??= macOf(secret))(input);
  };
  const nonce = (): string => {
    if (used === NONCE_BLOCK_BYTES) {
      nonces = nodeCrypto().randomFillSync(nonces ?? Buffer.allocUnsafeSlow(NONCE_BLOCK_BYTES));
      used = 0;
    }
    used += NONCE_BYTES;
    return nonces!.toString('base64url', used - NONCE_BYTES, used);
  };
  return {
    mac: async (label, ...parts) => macNow(label, ...parts),
    macNow,
    async issue(label, ...binding) {
      const fresh = nonce();
      return `${fresh}.${macNow(label, ...binding, fresh)}`;
    },
    async check(label, token, ...binding) {
      const match = typeof token === 'string' ? TOKEN.exec(token) : null;
      if (!match) return false;
      return sameMac(match[2]!, macNow(label, ...binding, match[1]!));
    },
  };
}

/** Compares two MACs in constant time (both are short base64url strings). */
export function sameMac(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
