/**
 * What the server keeps after a sign-in, in the shared store through the 'security' budget (never evicted before
 * it expires; over the budget a write is refused, never another record evicted: docs/security.md):
 * - an authorization code, by its SHA-256, for 60 s of use; kept 10 min so a replay within them is recognised and
 *   revokes the refresh-token family the code started (OAuth 2.1 §4.1.3). Single use is an atomic `claim`, so two
 *   instances redeeming the same code at once cannot both succeed;
 * - a refresh-token family: the SHA-256 of its current token and of the last few, rotated on every use. A token
 *   of the family used again (an old one, or the current one twice at once) revokes the whole family (OAuth 2.1
 *   §4.3.1, RFC 9700 §4.14.2); the revocation is its own key, so a rotation racing it cannot undo it.
 * Codes and tokens themselves are never stored; a refresh token is `amcp_rt_<family>.<secret>`.
 */

import { sha256Hex } from '../../digest.js';
import { authorizationKeys } from '../../server/caller.js';
import type { Store } from '../../store/types.js';

export const CODE_TTL_MS = 60_000;
const CODE_KEPT_MS = 10 * 60_000;
/** A family unused this long expires; however used, it ends this long after the sign-in. */
export const REFRESH_IDLE_MS = 30 * 24 * 3600_000;
export const REFRESH_MAX_AGE_MS = 90 * 24 * 3600_000;
/** Earlier tokens of a family recognised as reuse; older ones are merely invalid. */
const PREVIOUS_KEPT = 8;
/** A rotation's claim: long enough to cover two uses of one token racing on two instances. */
const ROTATION_CLAIM_MS = 10 * 60_000;

const REFRESH_PREFIX = 'amcp_rt_';
const REFRESH_TOKEN = /^amcp_rt_([A-Za-z0-9_-]{22})\.[A-Za-z0-9_-]{43}$/;

/** Who a token is for, and what it may do. */
export interface Grant {
  subject: string;
  /** The client's id digest (clients.ts clientDigest). */
  client: string;
  scopes: string[];
  resource: string;
}

export interface CodeRecord extends Grant {
  redirectUri: string;
  redirectGiven: boolean;
  codeChallenge: string;
  /** The refresh-token family this code starts, when a refresh token was asked for. */
  family?: string;
  expiresAt: number;
}

interface Family extends Grant {
  current: string;
  previous: string[];
  startedAt: number;
}

const random = (bytes: number) => process.getBuiltinModule('node:crypto').randomBytes(bytes).toString('base64url');

/** A new code for `record` (its family id chosen now); the code itself is returned, its digest kept. */
export async function issueCode(store: Store, record: Omit<CodeRecord, 'family' | 'expiresAt'>, offline: boolean): Promise<string> {
  const code = random(32);
  const kept: CodeRecord = { ...record, ...(offline ? { family: random(16) } : {}), expiresAt: Date.now() + CODE_TTL_MS };
  await store.withBudget('security').set(authorizationKeys.authorizationCode(await sha256Hex(code)), kept, CODE_KEPT_MS);
  return code;
}

export type Redemption = { ok: true; record: CodeRecord } | { ok: false; reason: 'unknown' | 'expired' | 'replayed' };

/** Redeems a code once: a code never issued writes nothing; a second redemption revokes what the first started. */
export async function redeemCode(store: Store, code: string): Promise<Redemption> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(code)) return { ok: false, reason: 'unknown' };
  const digest = await sha256Hex(code);
  const record = await store.get<CodeRecord>(authorizationKeys.authorizationCode(digest));
  if (!record) return { ok: false, reason: 'unknown' };
  if (!(await store.withBudget('security').claim(authorizationKeys.authorizationCodeUsed(digest), 1, CODE_KEPT_MS))) {
    if (record.family) await revokeFamily(store, record.family);
    return { ok: false, reason: 'replayed' };
  }
  return record.expiresAt < Date.now() ? { ok: false, reason: 'expired' } : { ok: true, record };
}

/** The family id a refresh token names, when it has the shape of one. */
export const familyOf = (token: string) => REFRESH_TOKEN.exec(token)?.[1];

const newToken = (family: string) => `${REFRESH_PREFIX}${family}.${random(32)}`;

function familyTtl(family: Family): number {
  return Math.max(1, Math.min(REFRESH_IDLE_MS, family.startedAt + REFRESH_MAX_AGE_MS - Date.now()));
}

/** Starts the family a code named, with its first refresh token. */
export async function startFamily(store: Store, id: string, grant: Grant): Promise<string> {
  const token = newToken(id);
  const family: Family = { ...grant, current: await sha256Hex(token), previous: [], startedAt: Date.now() };
  await store.withBudget('security').set(authorizationKeys.refreshFamily(id), family, familyTtl(family));
  return token;
}

export type Rotation =
  | { ok: true; grant: Grant; token: string }
  /** `reused`: a token of the family was used again, and the family is now revoked. */
  | { ok: false; reason: 'invalid' | 'revoked' | 'reused' | 'another-client' };

/** Uses a refresh token once: its family's next token, or why not (a reuse revokes the family). */
export async function rotateRefreshToken(store: Store, token: string, client: string): Promise<Rotation> {
  const id = familyOf(token);
  if (!id) return { ok: false, reason: 'invalid' };
  const [family, revoked] = (await store.getMany([authorizationKeys.refreshFamily(id), authorizationKeys.refreshFamilyRevoked(id)])) as [Family | undefined, unknown];
  if (!family) return { ok: false, reason: 'invalid' };
  if (revoked !== undefined) return { ok: false, reason: 'revoked' };
  const digest = await sha256Hex(token);
  if (family.previous.includes(digest)) {
    await revokeFamily(store, id);
    return { ok: false, reason: 'reused' };
  }
  if (digest !== family.current) return { ok: false, reason: 'invalid' };
  if (family.client !== client) return { ok: false, reason: 'another-client' };
  const security = store.withBudget('security');
  if (!(await security.claim(authorizationKeys.refreshTokenUsed(digest), 1, ROTATION_CLAIM_MS))) {
    await revokeFamily(store, id);
    return { ok: false, reason: 'reused' };
  }
  const next = newToken(id);
  const rotated: Family = { ...family, current: await sha256Hex(next), previous: [digest, ...family.previous].slice(0, PREVIOUS_KEPT) };
  await security.set(authorizationKeys.refreshFamily(id), rotated, familyTtl(rotated));
  const { subject, client: owner, scopes, resource } = family;
  return { ok: true, grant: { subject, client: owner, scopes, resource }, token: next };
}

/** Revokes a family: none of its tokens refreshes again (access tokens already issued run out within their 15 min). */
export async function revokeFamily(store: Store, id: string): Promise<void> {
  await store.withBudget('security').set(authorizationKeys.refreshFamilyRevoked(id), 1, REFRESH_IDLE_MS);
}

/** The family of `token` (its id and person) when the token is one of it and was issued to `client` (RFC 7009 §2.1). */
export async function ownedFamily(store: Store, token: string, client: string): Promise<{ id: string; subject: string } | undefined> {
  const id = familyOf(token);
  if (!id) return undefined;
  const family = await store.get<Family>(authorizationKeys.refreshFamily(id));
  const digest = await sha256Hex(token);
  return family && family.client === client && (family.current === digest || family.previous.includes(digest)) ? { id, subject: family.subject } : undefined;
}
