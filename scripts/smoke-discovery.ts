/**
 * The HTTP checks of `npm run smoke` before any MCP client connects: the discovery documents, and whether the
 * endpoint is open, asks for OAuth (then the 401 challenge, the protected resource metadata it names and the
 * authorization server's metadata are checked), or is behind Vercel Deployment Protection.
 */

/** A failed check; its message is the reason printed. */
export class SmokeFailure extends Error {}

export type Step = <T>(label: string, run: () => Promise<T>) => Promise<T>;

const BYPASS_HEADER = 'x-vercel-protection-bypass';

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((h) => h.toLowerCase() === name);
}

async function getJson(url: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const response = await fetch(url, { headers: { ...headers, accept: 'application/json' } });
  if (response.status === 401 || response.status === 403) throw new SmokeFailure(`${url} answered ${response.status}. ${protectionHint(headers)}`);
  if (!response.ok) throw new SmokeFailure(`${url} answered HTTP ${response.status}`);
  try {
    return (await response.json()) as Record<string, unknown>;
  } catch {
    throw new SmokeFailure(`${url} did not answer JSON`);
  }
}

/** Why a 401 without an OAuth challenge probably happened (docs/deploy.md "A protected preview deployment"). */
function protectionHint(headers: Record<string, string>): string {
  return hasHeader(headers, BYPASS_HEADER)
    ? `Vercel Deployment Protection refused the ${BYPASS_HEADER} header: check the Protection Bypass for Automation secret.`
    : `This looks like Vercel Deployment Protection: the bypass header is probably missing; pass --header "${BYPASS_HEADER}: <secret>".`;
}

/** mcp.json (well-known and plain), the server card and the AI Catalog listing it answer, and describe this endpoint. */
export async function checkDiscovery(url: URL, headers: Record<string, string>, step: Step): Promise<void> {
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

export type Access = { kind: 'open' } | { kind: 'oauth'; issuer: string };

/**
 * Whether the endpoint answers without a token. On a 401 with an OAuth challenge: the metadata it names must
 * name this very URL as its resource (RFC 9728 §3.3) and an authorization server whose metadata answers.
 */
export async function checkAccess(url: URL, headers: Record<string, string>, step: Step): Promise<Access> {
  // Without the caller's token, so the challenge is checked even when a token is passed for the tools.
  const anonymous = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'));
  const probe = await fetch(url, {
    method: 'POST',
    headers: { ...anonymous, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'smoke', method: 'ping' }),
  });
  await probe.body?.cancel();
  if (probe.status !== 401) return { kind: 'open' };
  const challenge = probe.headers.get('www-authenticate') ?? '';
  const params = parseChallenge(challenge);
  if (!/^Bearer\b/i.test(challenge) || !params.resource_metadata) {
    throw new SmokeFailure(`${url.href} answered 401 without an OAuth challenge. ${protectionHint(headers)}`);
  }
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
