/**
 * Values the server hands out and later trusts without keeping them: JSON under a MAC of the server's key
 * (keyring.ts), each kind under its own label so one can never pass for another. Sealed, not encrypted: nothing in
 * them is secret from the party holding them, only unforgeable. Sealed under the signing key's MAC key; opened under
 * any accepted key's, so a rotation voids nothing while the old key is listed.
 */

import { sameMac, type Keyring } from '../../server/keyring.js';
import type { ServerKeyring } from './keyring.js';

/** `<base64url JSON>.<MAC>`. */
export async function seal(keyring: Keyring, label: string, value: unknown): Promise<string> {
  const payload = Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
  return `${payload}.${await keyring.mac(label, payload)}`;
}

/** The value `seal(…, label, …)` made under one of the accepted keys, and that key's keyring; undefined for anything else (or over `maxChars`). */
export async function unsealWith<T>(keyring: ServerKeyring, label: string, token: unknown, maxChars: number): Promise<{ value: T; sealedBy: Keyring } | undefined> {
  if (typeof token !== 'string' || token.length > maxChars) return undefined;
  const dot = token.lastIndexOf('.');
  const payload = token.slice(0, dot);
  if (dot < 1 || !/^[A-Za-z0-9_-]+$/.test(payload)) return undefined;
  const mac = token.slice(dot + 1);
  let sealedBy: Keyring | undefined;
  for (const candidate of keyring.accepted) {
    if (sameMac(mac, await candidate.mac(label, payload))) {
      sealedBy = candidate;
      break;
    }
  }
  if (!sealedBy) return undefined;
  try {
    return { value: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as T, sealedBy };
  } catch {
    return undefined;
  }
}

/** The value `seal(…, label, …)` made under one of the accepted keys, or undefined for anything else (or anything over `maxChars`). */
export async function unseal<T>(keyring: ServerKeyring, label: string, token: unknown, maxChars: number): Promise<T | undefined> {
  return (await unsealWith<T>(keyring, label, token, maxChars))?.value;
}
