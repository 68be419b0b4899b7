/**
 * A person's consent, remembered (docs/oauth.md "Remembered consent"): once a person allowed a client on the consent
 * page and signed in, the same client asking again for no more (the same redirect URI exactly, the same resource,
 * scopes within those allowed, offline access only if it was allowed) within AUTH_SERVER_CONSENT_DAYS goes straight
 * to the provider's sign-in. The person is known only after that sign-in, so:
 * - the record is kept by person, in the store through the security budget (never evicted early by what callers
 *   write; admitted people only, so no one else can grow it), at most MAX_CONSENTS_PER_PERSON clients, the oldest
 *   dropped, each lapsing AUTH_SERVER_CONSENT_DAYS after the page (using it does not renew it);
 * - the browser holds a cookie sealed under the server's key naming the person it last signed in (by digest), which
 *   only says whose record to look at: the provider's sign-in still decides who the person is, and the callback
 *   checks that person's own record (callback.ts);
 * - revoking the client's refresh or access token (RFC 7009, revoke.ts) forgets the consent. A revocation is a key of
 *   its own, newer than every consent it forgets, so a sign-in writing the list at the same moment cannot bring one
 *   back.
 * A record that cannot be written (the store full or away) only means the page is shown next time.
 */

import { sha256HexSync } from '../../digest.js';
import { authorizationKeys } from '../../server/caller.js';
import type { Store } from '../../store/types.js';
import type { ServerKeyring } from './keyring.js';
import { cookieOf } from './pending.js';
import { seal, unseal } from './seal.js';

export const CONSENT_DAYS_VARIABLE = 'AUTH_SERVER_CONSENT_DAYS';
export const DEFAULT_CONSENT_DAYS = 30;
export const MAX_CONSENT_DAYS = 365;
/** Clients remembered per person; past it the consent given longest ago is dropped. */
export const MAX_CONSENTS_PER_PERSON = 20;

const PERSON_COOKIE = 'amcp_oauth_person';
const PERSON_LABEL = 'oauth-person';
const MAX_PERSON_COOKIE_CHARS = 256;
const DAY_MS = 24 * 3600_000;

/** What a person allowed one client: the client's digest, the exact redirect URI, the resource, the scopes, offline access. */
export interface Consented {
  client: string;
  redirectUri: string;
  resource: string;
  scopes: string[];
  offline: boolean;
}

interface Remembered extends Consented {
  grantedAt: number;
  expiresAt: number;
}

/** A person by the digest of their principal (`oidc:<sub>`, `github:<id>`): neither the cookie nor the store key names them. */
export const personOf = (subject: string) => sha256HexSync(`person ${subject}`);

const sameClient = (a: Consented, b: Consented) => a.client === b.client && a.redirectUri === b.redirectUri && a.resource === b.resource;

/** Whether what was remembered covers what is asked now: the same client, URI and resource, nothing more. */
const covers = (kept: Remembered, asked: Consented) =>
  sameClient(kept, asked) && asked.scopes.every((scope) => kept.scopes.includes(scope)) && (!asked.offline || kept.offline);

async function recordsOf(store: Store, person: string, client: string, now: number): Promise<Remembered[]> {
  const [list, revokedAt] = (await store.getMany([authorizationKeys.consents(person), authorizationKeys.consentRevoked(person, client)])) as [unknown, unknown];
  if (!Array.isArray(list)) return [];
  const since = typeof revokedAt === 'number' ? revokedAt : -Infinity;
  return (list as Remembered[]).filter((kept) => kept.expiresAt > now && !(kept.client === client && kept.grantedAt <= since));
}

/**
 * True when `person` consented to what is `asked` and it is still remembered: within `ttlMs` (AUTH_SERVER_CONSENT_DAYS
 * now, should the operator have shortened it since) and the time it was remembered for.
 */
export async function isRemembered(store: Store, person: string, asked: Consented, ttlMs: number, now = Date.now()): Promise<boolean> {
  return (await recordsOf(store, person, asked.client, now)).some((kept) => kept.grantedAt + ttlMs > now && covers(kept, asked));
}

/** The person this browser last signed in, when it holds our cookie saying so. */
export async function personInBrowser(keyring: ServerKeyring, request: Request, now = Date.now()): Promise<string | undefined> {
  const sealed = await unseal<{ p: string; e: number }>(keyring, PERSON_LABEL, cookieOf(request, PERSON_COOKIE), MAX_PERSON_COOKIE_CHARS);
  return sealed && typeof sealed.p === 'string' && sealed.e > now ? sealed.p : undefined;
}

/** The Set-Cookie line naming `person` as the one this browser signed in, for `ttlMs`. */
export async function personCookie(keyring: ServerKeyring, person: string, ttlMs: number, secure: boolean, now = Date.now()): Promise<string> {
  const value = await seal(keyring, PERSON_LABEL, { p: person, e: now + ttlMs });
  return `${PERSON_COOKIE}=${value}; Path=/oauth; Max-Age=${Math.floor(ttlMs / 1000)}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie line that forgets which person this browser signed in. */
export const clearPersonCookie = (secure: boolean) => `${PERSON_COOKIE}=; Path=/oauth; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;

/** Remembers that `person` consented to `given` on the page, for `ttlMs`; the same client's earlier consent is replaced. */
export async function rememberConsent(store: Store, person: string, given: Consented, ttlMs: number, now = Date.now()): Promise<void> {
  const kept = (await recordsOf(store, person, given.client, now)).filter((other) => !sameClient(other, given));
  const list: Remembered[] = [{ ...given, grantedAt: now, expiresAt: now + ttlMs }, ...kept]
    .sort((a, b) => b.grantedAt - a.grantedAt).slice(0, MAX_CONSENTS_PER_PERSON);
  const lastsMs = Math.max(...list.map((entry) => entry.expiresAt)) - now;
  await store.withBudget('security').set(authorizationKeys.consents(person), list, lastsMs);
}

/** Forgets every consent `person` gave `client` (its digest); nothing is written when there was none. */
export async function forgetConsent(store: Store, person: string, client: string, now = Date.now()): Promise<boolean> {
  const list = await recordsOf(store, person, client, now);
  const forgotten = list.filter((entry) => entry.client === client);
  if (!forgotten.length) return false;
  const security = store.withBudget('security');
  const lastsMs = Math.max(...forgotten.map((entry) => entry.expiresAt)) - now;
  // The revocation first: from here on no consent of this client granted until now counts, whatever the list says.
  await security.set(authorizationKeys.consentRevoked(person, client), now, lastsMs);
  const rest = list.filter((entry) => entry.client !== client);
  if (rest.length) await security.set(authorizationKeys.consents(person), rest, Math.max(...rest.map((entry) => entry.expiresAt)) - now);
  else await store.delete(authorizationKeys.consents(person));
  return true;
}

/** AUTH_SERVER_CONSENT_DAYS in ms: how long a consent is remembered (0: never). */
export function readConsentTtl(env: Record<string, string | undefined>): number {
  const raw = env[CONSENT_DAYS_VARIABLE]?.trim();
  if (!raw) return DEFAULT_CONSENT_DAYS * DAY_MS;
  const days = Number(raw);
  if (!/^\d+$/.test(raw) || days > MAX_CONSENT_DAYS) {
    throw new TypeError(`${CONSENT_DAYS_VARIABLE} must be a whole number of days from 0 (never remember consent) to ${MAX_CONSENT_DAYS}, got "${raw}".`);
  }
  return days * DAY_MS;
}
