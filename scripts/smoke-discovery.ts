/**
 * The HTTP checks of `npm run smoke` before any MCP client connects: the discovery documents, and whether the
 * endpoint is open, takes an API key, asks for OAuth (then the 401 challenge, the protected resource metadata it
 * names and the authorization server's metadata are checked), or is behind Vercel Deployment Protection. Every
 * request carries the headers the user gave, but for the one probe that checks the OAuth challenge, which is sent
 * without the Authorization header (a challenge is what a caller without a token gets).
 */

import { AUTH_TYPE } from '../lib/discovery/documents.js';
import { H_VERCEL_PROTECTION_BYPASS } from '../lib/protocol/headers.js';

/** A failed check; its message is the reason printed. */
export class SmokeFailure extends Error {}

export type Step = <T>(label: string, run: () => Promise<T>) => Promise<T>;

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((h) => h.toLowerCase() === name);
}

/**
 * Whether a 401 is Vercel Deployment Protection's rather than the deployment's: Vercel Authentication answers an
 * anonymous request with its sign-in page and a `_vercel_sso_nonce` cookie, a signed-in one it refuses with
 * `x-vercel-error`; neither is ever agent-mcp's, whose 401 is a Bearer challenge.
 */
function fromDeploymentProtection(response: Response): boolean {
  if (response.headers.has('x-vercel-error')) return true;
  if (/(^|[\s,])_vercel_sso_nonce=/.test(response.headers.get('set-cookie') ?? '')) return true;
  return response.headers.get('server')?.toLowerCase() === 'vercel' && !/^Bearer\b/i.test(response.headers.get('www-authenticate') ?? '');
}

/** What a 401 that is not agent-mcp's Bearer challenge means (docs/deploy.md "A protected preview deployment"). */
function notOurs(what: string, response: Response, headers: Record<string, string>): SmokeFailure {
  if (hasHeader(headers, H_VERCEL_PROTECTION_BYPASS)) {
    return new SmokeFailure(`${what} answered 401: Vercel Deployment Protection refused the ${H_VERCEL_PROTECTION_BYPASS} header: check the Protection Bypass for Automation secret.`);
  }
  const fix = `pass --header "${H_VERCEL_PROTECTION_BYPASS}: <secret>" (Project → Settings → Deployment Protection → Protection Bypass for Automation).`;
  return new SmokeFailure(fromDeploymentProtection(response)
    ? `${what} answered 401 from Vercel Deployment Protection (its sign-in page, not the server): ${fix}`
    : `${what} answered 401 without agent-mcp's challenge. This looks like Vercel Deployment Protection: the bypass header is probably missing; ${fix}`);
}

async function getJson(url: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const response = await fetch(url, { headers: { ...headers, accept: 'application/json' } });
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    // agent-mcp's discovery documents are public: whatever refused them stands in front of the server.
    throw notOurs(url, response, headers);
  }
  if (!response.ok) throw new SmokeFailure(`${url} answered HTTP ${response.status}`);
  try {
    return (await response.json()) as Record<string, unknown>;
  } catch {
    throw new SmokeFailure(`${url} did not answer JSON`);
  }
}

/**
 * mcp.json (well-known and plain), the server card and the AI Catalog listing it answer, and describe this endpoint;
 * returns how mcp.json says a client authenticates (its `auth.type`).
 */
export async function checkDiscovery(url: URL, headers: Record<string, string>, step: Step): Promise<string | undefined> {
  const wellKnown = await step('discovery /.well-known/mcp.json', () => getJson(`${url.origin}/.well-known/mcp.json`, headers));
  if (typeof wellKnown.url !== 'string' || new URL(wellKnown.url).origin !== url.origin) {
    throw new SmokeFailure(`/.well-known/mcp.json names ${String(wellKnown.url)}, not an endpoint on ${url.origin}`);
  }
  const plain = await step('discovery /mcp.json', () => getJson(`${url.origin}/mcp.json`, headers));
  if (JSON.stringify(plain) !== JSON.stringify(wellKnown)) throw new SmokeFailure('/mcp.json differs from /.well-known/mcp.json');
  const cardUrl = String(wellKnown.serverCard);
  const card = await step(`server card ${new URL(cardUrl).pathname}`, () => getJson(cardUrl, headers));
  const remotes = (card.remotes ?? []) as Array<{ url?: string }>;
  if (!remotes.some((r) => r.url === wellKnown.url)) throw new SmokeFailure(`the server card's remotes do not name ${String(wellKnown.url)}`);
  const catalog = await step('discovery /.well-known/ai-catalog.json', () => getJson(`${url.origin}/.well-known/ai-catalog.json`, headers));
  const entries = (Array.isArray(catalog.entries) ? catalog.entries : []) as Array<{ url?: string }>;
  if (!entries.some((e) => e.url === cardUrl)) throw new SmokeFailure(`/.well-known/ai-catalog.json lists no entry for ${cardUrl}`);
  const auth = wellKnown.auth as { type?: unknown } | undefined;
  return typeof auth?.type === 'string' ? auth.type : undefined;
}

/** A `Bearer` challenge's parameters (RFC 6750 §3). */
function parseChallenge(value: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const match of value.replace(/^Bearer\s+/i, '').matchAll(/(\w+)="([^"]*)"/g)) params[match[1]!] = match[2]!;
  return params;
}

/** The authorization server's RFC 8414 metadata, else its OpenID configuration. */
async function authorizationServerMetadata(issuer: string) {
  const { origin, pathname } = new URL(issuer);
  const path = pathname === '/' ? '' : pathname;
  for (const candidate of [`${origin}/.well-known/oauth-authorization-server${path}`, `${origin}${path}/.well-known/openid-configuration`]) {
    const response = await fetch(candidate, { headers: { accept: 'application/json' } });
    if (response.ok) return { at: candidate, metadata: (await response.json()) as Record<string, unknown> };
  }
  throw new SmokeFailure(`the authorization server ${issuer} publishes neither RFC 8414 nor OpenID metadata`);
}

export type Access = { kind: 'open' } | { kind: 'api-key' } | { kind: 'oauth'; issuer: string };

function ping(url: URL, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'smoke', method: 'ping' }),
  });
}

/** The reason an agent-mcp 401 gives: its challenge's error description, else its JSON-RPC error message. */
async function refusal(response: Response, challenge: Record<string, string>): Promise<string> {
  if (challenge.error_description) return challenge.error_description;
  const body = await response.json().catch(() => undefined) as { error?: { message?: unknown } } | undefined;
  return typeof body?.error?.message === 'string' ? body.error.message : 'no reason given';
}

/**
 * Whether the endpoint answers with the headers given, and who refused it if not: Vercel Deployment Protection, an
 * agent-mcp that takes API keys (mcp.json's `auth.type`, `authType`) and was sent none or a wrong one, or an
 * agent-mcp with OAuth on. Its OAuth challenge is checked whenever mcp.json says OAuth, token or not: the metadata it
 * names must name this very URL as its resource (RFC 9728 §3.3) and an authorization server whose metadata answers.
 */
export async function checkAccess(url: URL, headers: Record<string, string>, step: Step, authType?: string): Promise<Access> {
  const token = hasHeader(headers, 'authorization');
  const anonymous = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'));
  let probe = await ping(url, headers);
  if (probe.status !== 401 && token && authType === AUTH_TYPE.oauth) {
    await probe.body?.cancel();
    probe = await ping(url, anonymous);
  }
  if (probe.status !== 401) {
    await probe.body?.cancel();
    if (authType === AUTH_TYPE.apiKey) console.log('    auth: API key (the endpoint accepted the key given)');
    return authType === AUTH_TYPE.apiKey ? { kind: 'api-key' } : { kind: 'open' };
  }
  const challenge = probe.headers.get('www-authenticate') ?? '';
  const params = parseChallenge(challenge);
  if (!/^Bearer\b/i.test(challenge)) {
    await probe.body?.cancel();
    throw notOurs(url.href, probe, headers);
  }
  if (!params.resource_metadata) {
    const reason = await refusal(probe, params);
    if (authType !== AUTH_TYPE.apiKey) throw new SmokeFailure(`${url.href} answered 401 with a Bearer challenge that names no metadata: ${reason}`);
    throw new SmokeFailure(token
      ? `${url.href} refused the API key given (401: ${reason}); check the key against the server's MCP_API_KEYS (npm run key).`
      : `${url.href} needs an API key (its mcp.json says ${AUTH_TYPE.apiKey}): pass --header "Authorization: Bearer <key>".`);
  }
  await probe.body?.cancel();
  return step(`401 challenge → ${params.resource_metadata}`, async () => {
    const prm = await getJson(params.resource_metadata!, anonymous);
    if (prm.resource !== url.href) throw new SmokeFailure(`the protected resource metadata names resource ${String(prm.resource)}, not ${url.href}`);
    const issuer = (prm.authorization_servers as string[] | undefined)?.[0];
    if (!issuer) throw new SmokeFailure('the protected resource metadata names no authorization server');
    const { at, metadata } = await authorizationServerMetadata(issuer);
    if (metadata.issuer !== issuer) throw new SmokeFailure(`${at} names issuer ${String(metadata.issuer)}, not ${issuer}`);
    console.log(`    resource ${url.href}, authorization server ${issuer}${params.scope ? `, scope "${params.scope}"` : ''}`);
    return { kind: 'oauth', issuer } as const;
  });
}
