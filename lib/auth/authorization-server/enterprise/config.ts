/**
 * Enterprise sign-in (docs/oauth.md "Enterprise sign-in"; MCP Enterprise-Managed Authorization): the identity
 * providers whose ID-JAGs the built-in authorization server redeems (AUTH_ENTERPRISE_IDPS), read once and checked at
 * start-up, each error naming the variable and the entry. A provider is named by its issuer, exactly as its ID-JAGs
 * carry it in `iss`; its keys are at `jwksUrl`, or found in its metadata. Only the clients it lists may redeem its
 * grants, and only for the scopes it lists. Its subjects become principals as the built-in server's OpenID sign-in
 * names them (`oidc:<sub>`) when it is that sign-in's provider, so one person is one principal whichever way they
 * come; any other provider's under its issuer (`enterprise:<issuer>#<sub>`), so two providers' subjects never meet.
 * Light on purpose: the sign-in modes table reads it on every cold start (lib/auth/modes/enterprise.ts); jose loads
 * with the first assertion (assertion.ts).
 */

import { isRecord } from '../../../checks.js';
import { readAuthScopes, readServerScopes, secureUrl } from '../../config.js';
import { SIGNING_KEY_VARIABLE } from '../../signing-key.js';

export const ENTERPRISE_VARIABLE = 'AUTH_ENTERPRISE_IDPS';
const OFFLINE = 'offline_access';
const MAX_IDPS = 20;
const MAX_CLIENTS = 100;
const MAX_CLIENT_ID_CHARS = 2048;
const FIELDS = new Set(['issuer', 'jwksUrl', 'clients', 'scopes', 'subjects']);
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** How a provider's `sub` becomes a principal's subject. */
export type SubjectMapping = 'oidc' | 'issuer';

export interface EnterpriseIdp {
  /** Compared exactly with an ID-JAG's `iss`. */
  issuer: string;
  /** Its key set; absent: the `jwks_uri` of its RFC 8414 / OpenID metadata (lib/auth/keys.ts). */
  jwksUrl?: string;
  /**
   * The client ids (at this server) its ID-JAGs may name, a Client ID Metadata Document URL or an id agreed out of
   * band, each with the SHA-256 (hex) of its secret when it is a confidential client (client_secret_basic or _post).
   */
  clients: ReadonlyMap<string, string | undefined>;
  /** The scopes its ID-JAGs may carry; AUTH_SCOPES when it lists none. */
  scopes: string[];
  subjects: SubjectMapping;
}

/** How the messages about a provider's keys (lib/auth/keys.ts) name its settings. */
export const ENTERPRISE_KEY_SETTINGS = { issuer: `the issuer of the ${ENTERPRISE_VARIABLE} entry`, jwks: 'its jwksUrl' };

/** The principal's subject for a provider's `sub` (the principal's kind is `authorization-server`, as for every sign-in here). */
export const subjectOf = (idp: EnterpriseIdp, sub: string): string =>
  (idp.subjects === 'oidc' ? `oidc:${sub}` : `enterprise:${idp.issuer}#${sub}`);

const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string' && item.trim() !== '');

/** True when some provider's client authenticates with a secret: the metadata then names those methods. */
export const hasConfidentialClients = (idps: readonly EnterpriseIdp[]) => idps.some((idp) => [...idp.clients.values()].some(Boolean));

/** An entry's clients: `"id"` (public, `none`) or `{"id": "…", "sha256": "<hex of its secret>"}`. */
function readClients(value: unknown, where: string): Map<string, string | undefined> {
  const rule = `${where} clients must list 1 to ${MAX_CLIENTS} clients, each the id its ID-JAGs name in client_id (a Client ID Metadata Document URL, `
    + 'or the id agreed with the identity provider), or {"id": …, "sha256": "<SHA-256 hex of its secret>"} for a confidential client.';
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_CLIENTS) throw new TypeError(rule);
  const clients = new Map<string, string | undefined>();
  for (const item of value) {
    const [id, digest] = typeof item === 'string' ? [item, undefined] : isRecord(item) ? [item.id, item.sha256] : [];
    if (typeof id !== 'string' || !id.trim() || id.length > MAX_CLIENT_ID_CHARS || clients.has(id)) throw new TypeError(rule);
    if (digest !== undefined && (typeof digest !== 'string' || !SHA256_HEX.test(digest))) throw new TypeError(`${where} client ${JSON.stringify(id)}: sha256 must be the 64 lowercase hex digits of its secret's SHA-256.`);
    if (isRecord(item) && Object.keys(item).some((key) => key !== 'id' && key !== 'sha256')) throw new TypeError(rule);
    clients.set(id, digest);
  }
  return clients;
}

/** The providers in AUTH_ENTERPRISE_IDPS, or undefined when it is unset; a TypeError names a misused one. */
export function readEnterpriseIdps(env: Record<string, string | undefined>): EnterpriseIdp[] | undefined {
  const raw = env[ENTERPRISE_VARIABLE]?.trim();
  if (!raw) return undefined;
  if (!env[SIGNING_KEY_VARIABLE]) {
    throw new TypeError(`${ENTERPRISE_VARIABLE} is set but ${SIGNING_KEY_VARIABLE} is not: ID-JAGs are redeemed at the built-in authorization server; set ${SIGNING_KEY_VARIABLE} to turn it on.`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new TypeError(`${ENTERPRISE_VARIABLE} must be a JSON array of identity providers ([{"issuer":"https://…","clients":["…"]}]); it is not JSON.`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || parsed.length > MAX_IDPS) {
    throw new TypeError(`${ENTERPRISE_VARIABLE} must be a JSON array of 1 to ${MAX_IDPS} identity providers ([{"issuer":"https://…","clients":["…"]}]).`);
  }
  const granted = readServerScopes(env);
  const defaults = readAuthScopes(env);
  const signInIssuer = env.AUTH_SERVER_PROVIDER === 'oidc' ? env.AUTH_SERVER_OIDC_ISSUER?.trim() : undefined;
  const seen = new Set<string>();
  return parsed.map((entry: unknown, index) => {
    const where = `${ENTERPRISE_VARIABLE} entry ${index + 1}`;
    if (!isRecord(entry)) throw new TypeError(`${where} must be an object with an issuer and its clients.`);
    const unknown = Object.keys(entry).find((key) => !FIELDS.has(key));
    if (unknown) throw new TypeError(`${where} has "${unknown}", which is not one of ${[...FIELDS].join(', ')}.`);
    if (typeof entry.issuer !== 'string') throw new TypeError(`${where} needs an issuer (the identity provider's, exactly as its ID-JAGs carry it in iss).`);
    const issuer = secureUrl(`${where} issuer`, entry.issuer);
    // A fragment would make `enterprise:<issuer>#<sub>` ambiguous; RFC 8414 §2 forbids one anyway.
    if (new URL(issuer).hash || issuer.includes('#')) throw new TypeError(`${where} issuer must have no fragment.`);
    if (seen.has(issuer)) throw new TypeError(`${where} names the issuer ${issuer} again.`);
    seen.add(issuer);
    if (entry.jwksUrl !== undefined && typeof entry.jwksUrl !== 'string') throw new TypeError(`${where} jwksUrl must be a URL.`);
    const jwksUrl = entry.jwksUrl === undefined ? undefined : secureUrl(`${where} jwksUrl`, entry.jwksUrl);
    const clients = readClients(entry.clients, where);
    if (entry.scopes !== undefined && !strings(entry.scopes)) throw new TypeError(`${where} scopes must be an array of scope names.`);
    const scopes = entry.scopes === undefined ? defaults : entry.scopes.filter((scope) => scope !== OFFLINE);
    const outside = scopes.filter((scope) => !granted.includes(scope));
    if (outside.length) throw new TypeError(`${where} lists scopes the built-in server does not grant (AUTH_SERVER_SCOPES): ${outside.join(' ')}.`);
    if (entry.subjects !== undefined && entry.subjects !== 'oidc' && entry.subjects !== 'issuer') {
      throw new TypeError(`${where} subjects must be "oidc" (as the built-in server's OpenID sign-in names people) or "issuer" (apart, under the issuer).`);
    }
    const sameProvider = signInIssuer === issuer;
    if (entry.subjects === 'oidc' && !sameProvider) {
      throw new TypeError(`${where} maps subjects as "oidc", but its issuer is not AUTH_SERVER_OIDC_ISSUER (with AUTH_SERVER_PROVIDER=oidc): two providers' subjects would name the same principals.`);
    }
    return { issuer, ...(jwksUrl ? { jwksUrl } : {}), clients, scopes: [...new Set(scopes)], subjects: (entry.subjects as SubjectMapping | undefined) ?? (sameProvider ? 'oidc' : 'issuer') };
  });
}
