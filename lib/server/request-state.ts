/**
 * MRTR `requestState` (2026-07-28 basic/patterns/mrtr §Server Requirements): the client carries it, so it is
 * attacker-controlled. We sign it with HMAC-SHA-256 and bind it to the principal, the method and a digest of
 * the request's own params, with a short expiry; anything else fails verification.
 */

import { isObject } from '../protocol/jsonrpc.js';

const TTL_MS = 10 * 60_000;
/** A shared HMAC secret shorter than this is guessable. */
export const MIN_STATE_SECRET_LENGTH = 32;
/** Params that change between MRTR rounds and so stay out of the binding digest. */
const ROUND_PARAMS = new Set(['_meta', 'inputResponses', 'requestState']);

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
  sign(binding: Binding, state: unknown): Promise<string>;
  /** The application state when the token is intact, fresh and bound to this request; else undefined. */
  verify(binding: Binding, token: unknown): Promise<{ state: unknown } | undefined>;
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

const HMAC = { name: 'HMAC', hash: 'SHA-256' } as const;

/**
 * A signer keyed by `secret`, or without one by a random key of this process (tokens then verify only on the
 * instance that signed them).
 */
export function createStateSigner(secret: string | undefined, now: () => number = Date.now): StateSigner {
  // Made on first use: most cold starts never sign or verify a requestState.
  let made: Promise<CryptoKey> | undefined;
  const key = () => (made ??= secret === undefined
    ? crypto.subtle.generateKey(HMAC, false, ['sign', 'verify']) as Promise<CryptoKey>
    : crypto.subtle.importKey('raw', encoder.encode(secret), HMAC, false, ['sign', 'verify']));

  return {
    async sign(binding, state) {
      const payload: Payload = {
        p: binding.principal, m: binding.method, d: await digest(binding.params), x: now() + TTL_MS,
        ...(state !== undefined ? { s: state } : {}),
      };
      const body = toBase64Url(encoder.encode(JSON.stringify(payload)));
      const mac = await crypto.subtle.sign('HMAC', await key(), encoder.encode(body));
      return `${body}.${toBase64Url(new Uint8Array(mac))}`;
    },
    async verify(binding, token) {
      if (typeof token !== 'string') return undefined;
      const [body, mac, extra] = token.split('.');
      if (!body || !mac || extra !== undefined) return undefined;
      try {
        const intact = await crypto.subtle.verify('HMAC', await key(), fromBase64Url(mac), encoder.encode(body));
        if (!intact) return undefined;
        const payload = JSON.parse(new TextDecoder().decode(fromBase64Url(body))) as Payload;
        if (payload.x < now() || payload.p !== binding.principal || payload.m !== binding.method) return undefined;
        if (payload.d !== (await digest(binding.params))) return undefined;
        return { state: payload.s };
      } catch {
        return undefined;
      }
    },
  };
}
