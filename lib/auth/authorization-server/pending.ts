/**
 * An authorization request between the client's /oauth/authorize and the provider's callback: sealed under the
 * server's key into a cookie of the browser that made it, nothing stored. So a flood of authorization requests
 * costs the store nothing, the sign-in finishes on whichever instance the browser reaches, and the request is
 * bound to that browser: a form posted from another site carries no such cookie (SameSite=Lax), and a provider
 * callback forged into someone else's browser finds none (the callback's `state` names the cookie).
 */

import type { ServerKeyring } from './keyring.js';
import { seal, unseal } from './seal.js';

/** How long a person has to consent and sign in at the provider. */
export const PENDING_TTL_MS = 10 * 60_000;
/** The client's `state`, kept to hand back: bounded so the whole request fits one cookie. */
export const MAX_STATE_CHARS = 1024;
/** Browsers keep cookies of up to 4096 bytes, name and attributes included. */
const MAX_COOKIE_VALUE_CHARS = 3800;

const LABEL = 'oauth-pending';
const COOKIE_PREFIX = 'amcp_oauth_';
const ID = /^[A-Za-z0-9_-]{22}$/;

export interface Pending {
  /** 128 random bits: names the cookie and the provider sign-in (its state, PKCE verifier and nonce derive from it). */
  id: string;
  /** The client's id, by its digest (clients.ts clientDigest). */
  client: string;
  redirectUri: string;
  /** True when the request named its redirect URI (then the token request must name it too, OAuth 2.1 §4.1.3). */
  redirectGiven: boolean;
  state?: string;
  codeChallenge: string;
  scopes: string[];
  resource: string;
  /** A refresh token is issued with the code's tokens. */
  offline: boolean;
  expiresAt: number;
  /** The person approved on the consent page, or a consent remembered for them was found (`person`). */
  approved?: true;
  /** The person (remembered-consent.ts personOf) whose remembered consent approved the request instead of the page. */
  person?: string;
}

export const newPendingId = () => process.getBuiltinModule('node:crypto').randomBytes(16).toString('base64url');

const cookieName = (id: string) => `${COOKIE_PREFIX}${id}`;

/** The Set-Cookie line holding `pending`, or undefined when it is too large for one cookie. */
export async function pendingCookie(keyring: ServerKeyring, pending: Pending, secure: boolean): Promise<string | undefined> {
  const value = await seal(keyring, LABEL, pending);
  if (value.length > MAX_COOKIE_VALUE_CHARS) return undefined;
  return `${cookieName(pending.id)}=${value}; Path=/oauth; Max-Age=${Math.ceil(PENDING_TTL_MS / 1000)}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie line that removes the request's cookie once it is done. */
export const clearPendingCookie = (id: string, secure: boolean) =>
  `${cookieName(id)}=; Path=/oauth; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;

/** The value of the cookie `name` the request carries. */
export function cookieOf(request: Request, name: string): string | undefined {
  const cookie = (request.headers.get('cookie') ?? '').split(';').map((part) => part.trim()).find((part) => part.startsWith(`${name}=`));
  return cookie?.slice(name.length + 1);
}

/** The pending request `id` names, from this browser's cookie, when it is ours and not expired. */
export async function readPending(keyring: ServerKeyring, request: Request, id: unknown, now = Date.now()): Promise<Pending | undefined> {
  if (typeof id !== 'string' || !ID.test(id)) return undefined;
  const pending = await unseal<Pending>(keyring, LABEL, cookieOf(request, cookieName(id)), MAX_COOKIE_VALUE_CHARS);
  return pending && pending.id === id && pending.expiresAt > now ? pending : undefined;
}
