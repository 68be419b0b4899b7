/**
 * The API keys a deployment accepts (MCP_API_KEYS, docs/api-keys.md): one key a line, by its hash, never in clear.
 *
 *     ci sha256=<64 hex> scopes=agents:chat,docs:read rate=60/1m tokens=100000/1d
 *
 * A line is the key's name, then `sha256=` (required), `scopes=` (comma-separated), `rate=` (its own rate limit,
 * instead of RATE_LIMIT_PRINCIPAL) and `tokens=` (its own token budget, instead of TOKEN_BUDGET_CALLER) in any order. Lines may also be separated by `;`; blank lines and lines starting
 * with `#` are skipped. Removing a line revokes its key. Two lines may share a name (a key being rotated): they are
 * one principal, so they must agree on scopes and rate. A malformed line stops the start-up, naming it.
 *
 * A key's principal is its name, of kind `api-key`, and its state is keyed `key:<name>` (principalKey): that namespace
 * is the keys' (lib/auth/verifier.ts refuses a JWT whose `sub` enters it), so no token from an issuer can share a
 * key's conversations, tasks, limits or payments.
 */

import { createCountedWarning } from '../warn.js';
import { parseRate, type Rate } from '../limits/rate.js';
import type { Principal } from '../server/context.js';
import { principalKey } from '../server/principal-key.js';
import { API_KEY_PREFIX, apiKeyDigest, hasApiKeyShape, sameDigest } from './api-key.js';
import type { Verification } from './verify.js';

type Env = Record<string, string | undefined>;

/** A key's name: what its principal is called. */
export const KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
export const KEY_NAME_RULE = '1-64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit';
/** RFC 6749 §3.3 scope-token characters, less the `,` and `;` that separate them here. */
export const KEY_SCOPE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]+$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const FIELDS = new Set(['sha256', 'scopes', 'rate', 'tokens']);
const SHAPE = '"<name> sha256=<64 hex digits> [scopes=a,b] [rate=60/1m] [tokens=100000/1d]" (npm run key -- create prints one)';

/** One configured key. */
export interface ApiKey {
  name: string;
  digest: Buffer;
  scopes: string[];
  rate?: Rate;
  /** Its own token budget (lib/limits/tokens.ts). */
  tokens?: Rate;
}

export interface ApiKeys {
  keys: ApiKey[];
  /** Each key principal's own rate limit, by principalKey (lib/limits). */
  rates: ReadonlyMap<string, Rate>;
  /** Each key principal's own token budget, by subject (lib/limits/tokens.ts). */
  tokens: ReadonlyMap<string, Rate>;
}

/** The principal of the key named `name`. */
const keyPrincipal = (name: string, scopes: readonly string[]): Principal => ({ kind: 'api-key', subject: name, scopes: [...scopes] });

/** The MCP_API_KEYS line of a key: what `npm run key -- create` prints. */
export function apiKeyLine(name: string, key: string, scopes: readonly string[], rate?: string, tokens?: string): string {
  const fields = [name, `sha256=${apiKeyDigest(key).toString('hex')}`];
  if (scopes.length) fields.push(`scopes=${scopes.join(',')}`);
  if (rate) fields.push(`rate=${rate}`);
  if (tokens) fields.push(`tokens=${tokens}`);
  return fields.join(' ');
}

/** One line, or why it is malformed. */
function parseLine(line: string, where: string): ApiKey {
  const [name = '', ...rest] = line.split(/\s+/);
  const bad = (why: string) => new TypeError(`MCP_API_KEYS ${where} is not ${SHAPE}: ${why}.`);
  // A key pasted in clear would be echoed by the messages below, and kept in the environment: refused unquoted.
  if (line.includes(API_KEY_PREFIX)) throw bad('it holds a key itself; the line takes only the key\'s hash, and the key is best replaced now');
  if (!KEY_NAME.test(name)) throw bad(`the name "${name.slice(0, 64)}" must be ${KEY_NAME_RULE}`);
  const fields = new Map<string, string>();
  for (const field of rest) {
    const at = field.indexOf('=');
    const key = at > 0 ? field.slice(0, at) : field;
    if (!FIELDS.has(key)) throw bad(`"${key.slice(0, 32)}" is not a field (sha256, scopes, rate, tokens)`);
    if (fields.has(key)) throw bad(`${key} is given twice`);
    fields.set(key, field.slice(at + 1));
  }
  const hex = fields.get('sha256');
  if (hex === undefined || !SHA256_HEX.test(hex)) throw bad('sha256= must be the key\'s SHA-256 in 64 lowercase hex digits');
  const scopes = fields.get('scopes')?.split(',').filter(Boolean) ?? [];
  const wrong = scopes.find((scope) => !KEY_SCOPE.test(scope));
  if (wrong !== undefined) throw bad(`the scope "${wrong.slice(0, 32)}" has a character a scope cannot hold`);
  const rate = fields.has('rate') ? parseRate(`MCP_API_KEYS ${where} rate`, fields.get('rate')) : undefined;
  if (fields.has('rate') && !rate) throw bad('rate= must be a rate such as 60/1m (leave it out for RATE_LIMIT_PRINCIPAL)');
  const tokens = fields.has('tokens') ? parseRate(`MCP_API_KEYS ${where} tokens`, fields.get('tokens'), 'tokens') : undefined;
  if (fields.has('tokens') && !tokens) throw bad('tokens= must be a budget such as 100000/1d (leave it out for TOKEN_BUDGET_CALLER)');
  return { name, digest: Buffer.from(hex, 'hex'), scopes, ...(rate ? { rate } : {}), ...(tokens ? { tokens } : {}) };
}

const sameGrant = (a: ApiKey, b: ApiKey) =>
  a.scopes.join(' ') === b.scopes.join(' ') && a.rate?.text === b.rate?.text && a.tokens?.text === b.tokens?.text;

/** The keys configured in MCP_API_KEYS, or undefined when it is unset; a malformed line throws a TypeError naming it. */
export function readApiKeys(env: Env): ApiKeys | undefined {
  const value = env.MCP_API_KEYS;
  if (value === undefined || value.trim() === '') return undefined;
  const keys: ApiKey[] = [];
  value.split(/[\n;]/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `line ${index + 1}`;
    const key = parseLine(line, where);
    const twin = keys.find((k) => k.digest.equals(key.digest));
    if (twin) throw new TypeError(`MCP_API_KEYS ${where} repeats the key of "${twin.name}": one key, one line.`);
    const namesake = keys.find((k) => k.name === key.name);
    if (namesake && !sameGrant(namesake, key)) {
      throw new TypeError(`MCP_API_KEYS ${where} names "${key.name}" again with other scopes, rate or tokens: lines of one name are one principal.`);
    }
    keys.push(key);
  });
  if (keys.length === 0) throw new TypeError('MCP_API_KEYS is set but holds no key line; unset it, or add the line npm run key -- create prints.');
  const rates = new Map(keys.flatMap((k) => (k.rate ? [[principalKey(keyPrincipal(k.name, [])), k.rate] as const] : [])));
  const tokens = new Map(keys.flatMap((k) => (k.tokens ? [[principalKey(keyPrincipal(k.name, [])), k.tokens] as const] : [])));
  return { keys, rates, tokens };
}

/** What a refused key is told: one sentence for a wrong value, a revoked key and a malformed one alike. */
const NOT_VALID = 'The API key is not valid.';

/** Checks presented keys against the configured ones; refusals are counted in the operator's log. */
export function createApiKeyCheck(config: ApiKeys): (token: string) => Verification {
  const refused = createCountedWarning((_detail, count) =>
    `auth: ${count} request${count === 1 ? '' : 's'} with an API key that is not in MCP_API_KEYS (wrong, revoked or malformed) since the last report.`);
  return (token) => {
    if (!hasApiKeyShape(token)) {
      refused.note();
      return { ok: false, description: NOT_VALID };
    }
    const digest = apiKeyDigest(token);
    // Every configured digest is compared, matching or not, so the time taken says nothing about which came close.
    let found: ApiKey | undefined;
    for (const key of config.keys) if (sameDigest(key.digest, digest) && !found) found = key;
    if (!found) {
      refused.note();
      return { ok: false, description: NOT_VALID };
    }
    return { ok: true, principal: keyPrincipal(found.name, found.scopes) };
  };
}
