/**
 * Where an error at /oauth/authorize goes (RFC 9700 §4.11.2: an authorization server "SHOULD only automatically
 * redirect the user agent if it trusts the redirection URI"). Anyone can register a client (RFC 7591) or name a
 * metadata document with any https redirect URI, so a redirect URI is trusted only once a person approved that
 * client and that URI on the consent page, in this browser: until then an error is shown on a page of ours, with a
 * link the person may follow, never a redirect. The approval is recorded in a cookie of the browser that gave it,
 * sealed under the server's key (so it cannot be forged or moved to another client or URI), naming the client and
 * the redirect URI by a digest: at most MAX_APPROVALS of them, the most recent kept, each for APPROVAL_TTL_MS.
 */

import { sha256HexSync } from '../../digest.js';
import type { ServerKeyring } from './keyring.js';
import { cookieOf } from './pending.js';
import { describeRedirect } from './redirect-uri.js';
import { errorPage, redirect } from './replies.js';
import { authorizationResponse } from './response.js';
import { seal, unseal } from './seal.js';

const LABEL = 'oauth-approvals';
const COOKIE = 'amcp_oauth_approved';
export const APPROVAL_TTL_MS = 30 * 24 * 3600_000;
export const MAX_APPROVALS = 8;
const MAX_COOKIE_CHARS = 2048;

/** Digests of approved (client, redirect URI) pairs with when each approval lapses (ms). */
type Approvals = Array<[digest: string, expiresAt: number]>;

/** One approval: the client by its digest (clients.ts clientDigest), the redirect URI exactly. */
const approvalOf = (client: string, redirectUri: string) => sha256HexSync(`${client} ${redirectUri}`);

async function readApprovals(keyring: ServerKeyring, request: Request, now: number): Promise<Approvals> {
  const sealed = await unseal<Approvals>(keyring, LABEL, cookieOf(request, COOKIE), MAX_COOKIE_CHARS);
  return Array.isArray(sealed) ? sealed.filter((entry) => Array.isArray(entry) && typeof entry[0] === 'string' && entry[1] > now) : [];
}

/** The Set-Cookie line recording that the person approved `client` (its digest) with `redirectUri` in this browser. */
export async function approvalCookie(keyring: ServerKeyring, request: Request, client: string, redirectUri: string, secure: boolean, now = Date.now()): Promise<string> {
  const digest = approvalOf(client, redirectUri);
  const kept = (await readApprovals(keyring, request, now)).filter(([d]) => d !== digest);
  const approvals: Approvals = [[digest, now + APPROVAL_TTL_MS] as [string, number], ...kept].slice(0, MAX_APPROVALS);
  return `${COOKIE}=${await seal(keyring, LABEL, approvals)}; Path=/oauth; Max-Age=${APPROVAL_TTL_MS / 1000}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export interface AuthorizationError {
  /** The client's digest (clients.ts clientDigest). */
  client: string;
  redirectUri: string;
  state: string | undefined;
  /** The issuer, for `iss` (RFC 9207). */
  origin: string;
  error: string;
  description: string;
}

/**
 * The answer to an authorization request refused after its client and redirect URI were found registered: the
 * error sent to the redirect URI when this browser's person approved that pair, else a page saying why, with a
 * link carrying the same error back to the client.
 */
export async function refuseAuthorization(keyring: ServerKeyring, request: Request, refused: AuthorizationError): Promise<Response> {
  const { client, redirectUri, state, origin, error, description } = refused;
  const location = authorizationResponse(redirectUri, origin, state, { error, error_description: description });
  const digest = approvalOf(client, redirectUri);
  if ((await readApprovals(keyring, request, Date.now())).some(([d]) => d === digest)) return redirect(location);
  return errorPage(400, description, { href: location, label: describeRedirect(redirectUri) });
}
