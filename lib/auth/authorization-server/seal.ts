/**
 * Values the server hands out and later trusts without keeping them: JSON under a MAC of the server's key
 * (keyring.ts), each kind under its own label so one can never pass for another. Sealed, not encrypted: nothing in
 * them is secret from the party holding them, only unforgeable.
 */

import { sameMac, type Keyring } from '../../server/keyring.js';

/** `<base64url JSON>.<MAC>`. */
export async function seal(keyring: Keyring, label: string, value: unknown): Promise<string> {
  const payload = Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
  return `${payload}.${await keyring.mac(label, payload)}`;
}

/** The value `seal(keyring, label, …)` made, or undefined for anything else (or anything over `maxChars`). */
export async function unseal<T>(keyring: Keyring, label: string, token: unknown, maxChars: number): Promise<T | undefined> {
  if (typeof token !== 'string' || token.length > maxChars) return undefined;
  const dot = token.lastIndexOf('.');
  const payload = token.slice(0, dot);
  if (dot < 1 || !/^[A-Za-z0-9_-]+$/.test(payload) || !sameMac(token.slice(dot + 1), await keyring.mac(label, payload))) return undefined;
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as T;
  } catch {
    return undefined;
  }
}
