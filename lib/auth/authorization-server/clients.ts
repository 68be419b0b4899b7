/**
 * Who a client is. Two kinds of client id (MCP authorization §Client Registration Approaches):
 * - a Client ID Metadata Document: the id is an https URL whose document names the client and its redirect URIs
 *   (fetch-document.ts); the consent page shows the document's host, the one thing about it that is verified;
 * - a registration here (RFC 7591, which the 2026-07-28 revision deprecates but Cursor and others still use). The
 *   registration is kept in the client id itself, sealed under the server's key: nothing is stored, so a flood of
 *   registrations (Claude registers anew on every connection) costs the store nothing and needs no bound there.
 * Every client is public (`token_endpoint_auth_method: none`) and proves itself with PKCE.
 */

import { isRecord } from '../../checks.js';
import { sha256HexSync } from '../../digest.js';
import { authorizationKeys } from '../../server/caller.js';
import type { ServerKeyring } from './keyring.js';
import type { Store } from '../../store/types.js';
import { fetchDocument, type FetchLimits } from './fetch-document.js';
import { redirectUriProblem } from './redirect-uri.js';
import { seal, unseal } from './seal.js';

export interface Client {
  id: string;
  kind: 'document' | 'registered';
  /** The name the client gives itself: not verified, shown as such. */
  name?: string;
  redirectUris: string[];
  /** Registered (or documented) for the refresh_token grant. */
  refresh: boolean;
}

/** Bounds of what a client may register or document (docs/security.md "Bounds"). */
export const CLIENT_BOUNDS = {
  /** A registration request's body, and a metadata document. */
  maxDocumentBytes: 16 * 1024,
  maxRedirectUris: 10,
  maxNameChars: 100,
  /** A registration, sealed into its client id; keeps authorization URLs well under what servers accept. */
  maxClientIdChars: 2048,
  documentTimeoutMs: 5_000,
  /** How long a fetched document is reused when its Cache-Control says nothing (at most an hour whatever it says). */
  documentCacheSec: 300,
  maxDocumentCacheSec: 3600,
} as const;

const CLIENT_LABEL = 'oauth-client';
const REFRESH_GRANT = 'refresh_token';
const CODE_GRANT = 'authorization_code';

/** What a registration request is refused with (RFC 7591 §3.2.2), or what it registered. */
export type Registration =
  | { ok: true; client: Client; body: Record<string, unknown> }
  | { ok: false; error: 'invalid_client_metadata' | 'invalid_redirect_uri'; description: string };


/** The redirect URIs of a registration or document, or why they are not acceptable. */
function readRedirectUris(value: unknown): string[] | string {
  if (!Array.isArray(value) || value.length === 0) return 'redirect_uris must be a non-empty array';
  if (value.length > CLIENT_BOUNDS.maxRedirectUris) return `redirect_uris may hold at most ${CLIENT_BOUNDS.maxRedirectUris} URIs`;
  for (const uri of value) {
    const problem = redirectUriProblem(uri);
    // The URI is the client's own string: named by position, not echoed.
    if (problem) return `redirect_uris[${value.indexOf(uri)}] ${problem}`;
  }
  return value as string[];
}

const nameOf = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim().slice(0, CLIENT_BOUNDS.maxNameChars) : undefined);
const wantsRefresh = (grants: unknown) => Array.isArray(grants) && grants.includes(REFRESH_GRANT);

/** Registers a client (RFC 7591 §3): the metadata it sent, checked, sealed into its id. */
export async function registerClient(metadata: unknown, keyring: ServerKeyring, now = Date.now()): Promise<Registration> {
  if (!isRecord(metadata)) return { ok: false, error: 'invalid_client_metadata', description: 'The registration must be a JSON object.' };
  const uris = readRedirectUris(metadata.redirect_uris);
  if (typeof uris === 'string') return { ok: false, error: 'invalid_redirect_uri', description: `The registration's ${uris}.` };
  if (Array.isArray(metadata.response_types) && !metadata.response_types.includes('code')) {
    return { ok: false, error: 'invalid_client_metadata', description: 'This server issues authorization codes only: response_types must include "code".' };
  }
  const name = nameOf(metadata.client_name);
  const refresh = wantsRefresh(metadata.grant_types);
  const issuedAt = Math.floor(now / 1000);
  const id = await seal(keyring, CLIENT_LABEL, { n: name, u: uris, r: refresh ? 1 : 0, t: issuedAt });
  if (id.length > CLIENT_BOUNDS.maxClientIdChars) {
    return { ok: false, error: 'invalid_client_metadata', description: `The registration is too large to keep (redirect URIs and name take at most about ${CLIENT_BOUNDS.maxClientIdChars * 3 / 4} bytes).` };
  }
  const client: Client = { id, kind: 'registered', ...(name ? { name } : {}), redirectUris: uris, refresh };
  // RFC 7591 §3.2.1: the server may replace what it does not support; it answers with what it registered.
  return {
    ok: true,
    client,
    body: {
      client_id: id,
      client_id_issued_at: issuedAt,
      redirect_uris: uris,
      grant_types: refresh ? [CODE_GRANT, REFRESH_GRANT] : [CODE_GRANT],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(name ? { client_name: name } : {}),
      ...(metadata.application_type === 'native' || metadata.application_type === 'web' ? { application_type: metadata.application_type } : {}),
    },
  };
}

/** The client an id names, or a fixed sentence saying why there is none (`document`: its metadata document was refused). */
export type Resolved = { ok: true; client: Client } | { ok: false; reason: string; document?: true };

export interface ClientSources {
  keyring: ServerKeyring;
  store: Store;
  /** Served locally: documents may be on loopback, over http. */
  local: boolean;
}

/** True when `id` has the shape of a metadata document URL (the spec: https, a path, no fragment or dot segments). */
export function isDocumentClientId(id: string, local: boolean): boolean {
  if (!URL.canParse(id) || id.length > CLIENT_BOUNDS.maxClientIdChars) return false;
  const url = new URL(id);
  const scheme = url.protocol === 'https:' || (local && url.protocol === 'http:');
  return scheme && url.pathname !== '/' && !id.includes('#') && !url.username && !url.password && !/\/\.\.?(?:\/|$)/.test(id.slice(url.origin.length));
}

/** The client `id` names: a document fetched (or cached in the store), or a registration unsealed. */
export async function resolveClient(id: string, sources: ClientSources): Promise<Resolved> {
  if (/^https?:/i.test(id)) return resolveDocument(id, sources);
  const sealed = await unseal<{ n?: string; u: string[]; r: number }>(sources.keyring, CLIENT_LABEL, id, CLIENT_BOUNDS.maxClientIdChars);
  if (!sealed) return { ok: false, reason: 'This client is not registered with this server.' };
  return { ok: true, client: { id, kind: 'registered', ...(sealed.n ? { name: sealed.n } : {}), redirectUris: sealed.u, refresh: sealed.r === 1 } };
}

type Cached = { n?: string; u: string[]; r: number };

async function resolveDocument(id: string, { store, local }: ClientSources): Promise<Resolved> {
  if (!isDocumentClientId(id, local)) return { ok: false, reason: 'The client id is not a valid metadata document URL (https, with a path, no fragment).' };
  const key = authorizationKeys.clientDocument(id);
  const cached = await store.get<Cached>(key).catch(() => undefined);
  if (cached) return { ok: true, client: { id, kind: 'document', ...(cached.n ? { name: cached.n } : {}), redirectUris: cached.u, refresh: cached.r === 1 } };
  const limits: FetchLimits = { timeoutMs: CLIENT_BOUNDS.documentTimeoutMs, maxBytes: CLIENT_BOUNDS.maxDocumentBytes, allowPrivate: local };
  const fetched = await fetchDocument(new URL(id), limits);
  if (!fetched.ok) return { ok: false, document: true, reason: `The client's metadata document could not be used: ${fetched.reason}.` };
  let document: unknown;
  try {
    document = JSON.parse(fetched.text);
  } catch {
    return { ok: false, document: true, reason: 'The client\'s metadata document is not JSON.' };
  }
  if (!isRecord(document) || document.client_id !== id) return { ok: false, document: true, reason: 'The client\'s metadata document does not name its own URL as client_id.' };
  const uris = readRedirectUris(document.redirect_uris);
  if (typeof uris === 'string') return { ok: false, document: true, reason: `The client's metadata document is not acceptable: its ${uris}.` };
  const name = nameOf(document.client_name);
  const entry: Cached = { ...(name ? { n: name } : {}), u: uris, r: wantsRefresh(document.grant_types) ? 1 : 0 };
  const ttlSec = fetched.noStore ? 0 : Math.min(fetched.maxAgeSec ?? CLIENT_BOUNDS.documentCacheSec, CLIENT_BOUNDS.maxDocumentCacheSec);
  // A cache filled by whoever names a URL: in the pool of callers without an identity, whose floods evict only its own.
  if (ttlSec > 0) await store.withBudget('anonymous').set(key, entry, ttlSec * 1000).catch(() => undefined);
  return { ok: true, client: { id, kind: 'document', ...(name ? { name } : {}), redirectUris: uris, refresh: entry.r === 1 } };
}

/** The digest a code or refresh family keeps of its client's id (a registered client's id can be long). */
export const clientDigest = (id: string) => sha256HexSync(id);
