/**
 * Who may see the usage page and its JSON (issue 46, docs/observability.md "The usage page"): nobody by default.
 * Allowed are an API key holding the scope `usage:read` (keys are minted by the operator, so the scope is the
 * operator's word), and the principals the operator names in USAGE_ADMINS, signed in through any mode on (API keys,
 * AUTH_ISSUER, the built-in authorization server). An OAuth token's scopes do not count: a client asks for its own
 * scopes, so only a name in USAGE_ADMINS lets a token's principal in. `npm start` alone may open it without sign-in,
 * to a request whose socket is loopback on a server that is not a deployment (handler.ts).
 */

import { KEY_NAME, KEY_NAME_RULE, type ApiKeys } from '../../auth/api-keys.js';
import { principalKey } from '../../server/principal-key.js';
import type { Principal } from '../../server/context.js';

type Env = Record<string, string | undefined>;

/** The scope an API key needs to read the usage page. */
export const USAGE_SCOPE = 'usage:read';
export const USAGE_ADMINS_VARIABLE = 'USAGE_ADMINS';

/** How long a name in USAGE_ADMINS may be: a token's `sub` is rarely past 255 characters (RFC 7519 sets no bound). */
const MAX_ADMIN_LENGTH = 256;
const MAX_ADMINS = 100;
const API_KEY_PREFIX = principalKey({ kind: 'api-key', subject: '' });

/** The principals named in USAGE_ADMINS, by principalKey: `key:<name>` for an API key, a token's `sub` as it is. */
export type UsageAdmins = ReadonlySet<string>;

/**
 * USAGE_ADMINS: principals separated by commas or white space, each as its state is keyed (`key:ops` for the API key
 * named ops, `github:12345` for a token whose sub is that). Read at start-up; a name no sign-in mode can ever
 * produce stops it, naming the variable, rather than leave the operator locked out without a word.
 */
export function readUsageAdmins(env: Env, signIn: { modes: number; apiKeys?: ApiKeys }): UsageAdmins {
  const raw = env[USAGE_ADMINS_VARIABLE]?.trim();
  if (!raw) return new Set();
  const bad = (why: string) => new TypeError(`${USAGE_ADMINS_VARIABLE} ${why}.`);
  if (signIn.modes === 0) throw bad('is set but no sign-in mode is on (MCP_API_KEYS, AUTH_ISSUER or AUTH_SERVER_KEY): nobody could sign in as an admin');
  const names = raw.split(/[\s,]+/).filter(Boolean);
  if (names.length > MAX_ADMINS) throw bad(`names ${names.length} principals; at most ${MAX_ADMINS}`);
  for (const name of names) {
    if (name.length > MAX_ADMIN_LENGTH) throw bad(`names a principal longer than ${MAX_ADMIN_LENGTH} characters`);
    if (!name.startsWith(API_KEY_PREFIX)) continue;
    const key = name.slice(API_KEY_PREFIX.length);
    if (!KEY_NAME.test(key)) throw bad(`names "${name.slice(0, 72)}", whose key name must be ${KEY_NAME_RULE}`);
    if (!signIn.apiKeys?.keys.some((k) => k.name === key)) throw bad(`names "${name}", but MCP_API_KEYS has no key named "${key}"`);
  }
  return new Set(names);
}

/** True when `principal` may read the usage page. */
export function mayReadUsage(principal: Principal, admins: UsageAdmins): boolean {
  if (admins.has(principalKey(principal))) return true;
  return principal.kind === 'api-key' && principal.scopes.includes(USAGE_SCOPE);
}

/** What start-up says of who may read the page, short enough for one of its lines. */
export function describeUsageAccess(admins: UsageAdmins, signedIn: boolean): string {
  if (!signedIn) return 'nobody, as no sign-in mode is on';
  const named = admins.size ? ` or the ${admins.size} principal${admins.size === 1 ? '' : 's'} in ${USAGE_ADMINS_VARIABLE}` : '';
  return `API keys with the scope ${USAGE_SCOPE}${named}`;
}
