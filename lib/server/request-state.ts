/**
 * MRTR `requestState` (2026-07-28 basic/patterns/mrtr §Server Requirements): the client carries it, so it is
 * attacker-controlled. It is sealed with AES-256-GCM (an AEAD, which the spec allows beside an HMAC): nothing in it
 * can be changed, and nothing in it (a conversation id, an earlier answer) can be read by whoever holds it, which
 * for an anonymous caller may be anyone. Inside, it is bound to the principal, the method and a digest of the
 * request's own params, with a short expiry; anything else fails to open. Each state is used once (the dispatcher
 * claims it in the store for its remaining life).
 */

import { isObject } from '../protocol/jsonrpc.js';

const TTL_MS = 10 * 60_000;
/** A shared secret shorter than this is guessable. */
export const MIN_STATE_SECRET_LENGTH = 32;
/** Params that change between MRTR rounds and so stay out of the binding digest. */
const ROUND_PARAMS = new Set(['_meta', 'inputResponses', 'requestState']);
/** AES-GCM's nonce: 96 random bits per state (NIST SP 800-38D §8.2.2). */
const IV_BYTES = 12;
/** The key is derived from the secret (RFC 5869), apart from every MAC the keyring makes with it. */
const KEY_INFO = 'agent-mcp requestState AES-256-GCM';

interface Binding {
  principal: string;
  method: string;
  params: Record<string, unknown>;
}

interface Payload {
  p: string;
  m: string;
  d: string;
  x: number;
  s?: unknown;
}

export interface StateSigner {
  /** A sealed token of `state`, bound to `binding`. */
  sign(binding: Binding, state: unknown): Promise<string>;
  /** The application state and when the token expires, when it is intact, fresh and bound to this request; else undefined. */
  verify(binding: Binding, token: unknown): Promise<{ state: unknown; expiresAt: number } | undefined>;
}

const encoder = new TextEncoder();

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** JSON with sorted keys, so equal params always digest equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

async function digest(params: Record<string, unknown>): Promise<string> {
  const bound = Object.fromEntries(Object.entries(params).filter(([k]) => !ROUND_PARAMS.has(k)));
  const hash = await crypto.subtle.digest('SHA-256', encoder.encode(canonicalJson(bound)));
  return toBase64Url(new Uint8Array(hash));
}

const AES = { name: 'AES-GCM', length: 256 } as const;

/** The sealing key: derived from `secret`, or without one a random key of this process. */
async function sealingKey(secret: string | undefined): Promise<CryptoKey> {
  if (secret === undefined) return crypto.subtle.generateKey(AES, false, ['encrypt', 'decrypt']) as Promise<CryptoKey>;
  const material = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: encoder.encode(KEY_INFO) }, material, AES, false, ['encrypt', 'decrypt'],
  );
}

/**
 * A sealer keyed by `secret`, or without one by a random key of this process (tokens then open only on the
 * instance that sealed them).
 */
export function createStateSigner(secret: string | undefined, now: () => number = Date.now): StateSigner {
  // Made on first use: most cold starts never seal or open a requestState.
  let made: Promise<CryptoKey> | undefined;
  const key = () => (made ??= sealingKey(secret));

  return {
    async sign(binding, state) {
      const payload: Payload = {
        p: binding.principal, m: binding.method, d: await digest(binding.params), x: now() + TTL_MS,
        ...(state !== undefined ? { s: state } : {}),
      };
      const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
      const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await key(), encoder.encode(JSON.stringify(payload)));
      return `${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`;
    },
    async verify(binding, token) {
      if (typeof token !== 'string') return undefined;
      const [iv, sealed, extra] = token.split('.');
      if (!iv || !sealed || extra !== undefined) return undefined;
      try {
        // Decryption fails unless the token is exactly one this key sealed (GCM's tag).
        const opened = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromBase64Url(iv) }, await key(), fromBase64Url(sealed));
        const payload = JSON.parse(new TextDecoder().decode(opened)) as Payload;
        if (payload.x < now() || payload.p !== binding.principal || payload.m !== binding.method) return undefined;
        if (payload.d !== (await digest(binding.params))) return undefined;
        return { state: payload.s, expiresAt: payload.x };
      } catch {
        return undefined;
      }
    },
  };
}
