/**
 * Test support: an OAuth client of the built-in authorization server spoken by hand, request by request, so tests
 * can send what a real client sends (its documented request shapes) and what an attacker would.
 */

import { createHash, randomBytes } from 'node:crypto';
import { followToRedirect, type BrowserOptions } from './browser-leg.js';

/** A PKCE pair (RFC 7636): a verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Registers a client (RFC 7591); its reply. */
export async function register(origin: string, metadata: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${origin}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
  return { status: response.status, body: await response.json() as Record<string, unknown> };
}

/** An authorization URL with the usual parameters; `params` adds or (with null) removes some. */
export function authorizationUrl(origin: string, params: Record<string, string | null>): URL {
  const url = new URL(`${origin}/oauth/authorize`);
  const all: Record<string, string | null> = { response_type: 'code', code_challenge_method: 'S256', resource: `${origin}/mcp`, ...params };
  for (const [name, value] of Object.entries(all)) if (value !== null) url.searchParams.set(name, value);
  return url;
}

/** The browser's whole way from an authorization URL to the client's redirect URI; the URL it lands on. */
export const signIn = (url: URL, redirectUri: string, options?: BrowserOptions) => followToRedirect(url, redirectUri, options);

/** A token request (form-encoded, as clients send it); status and JSON reply. */
export async function tokenRequest(origin: string, form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${origin}/oauth/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: await response.json() as Record<string, unknown> };
}

/** A revocation request (RFC 7009, form-encoded, as clients send it): the token and the client sending it; the status. */
export async function revokeRequest(origin: string, token: string, clientId: string): Promise<number> {
  const response = await fetch(`${origin}/oauth/revoke`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, client_id: clientId }).toString(),
  });
  await response.body?.cancel();
  return response.status;
}

/** A whole sign-in of a registered client: its code, verifier and the landing URL. */
export async function codeFor(origin: string, clientId: string, redirectUri: string, extra: Record<string, string | null> = {}) {
  const { verifier, challenge } = pkce();
  const landed = await signIn(authorizationUrl(origin, { client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, state: 's1', ...extra }), redirectUri);
  return { code: landed.searchParams.get('code'), verifier, landed };
}

/** A POST of a tools/call to the MCP endpoint with a bearer token; its status and parsed body (or text). */
export async function callWith(mcpUrl: string, token: string, tool = 'whoami') {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {} } }),
  });
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: await response.json() as Record<string, any> };
}
