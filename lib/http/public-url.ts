/**
 * The public origin a request reached, so every URL we advertise (PRM `resource`, challenges, discovery
 * documents) and the audience we verify are right per deployment, previews included:
 * 1. PUBLIC_URL, when set, always;
 * 2. on Vercel (`VERCEL` set), the forwarded host and protocol its edge sets for the production, branch and
 *    preview URLs alike, else VERCEL_BRANCH_URL, else VERCEL_URL, over https;
 * 3. otherwise the Host header. Forwarded headers are not trusted off Vercel: there they are the client's
 *    word, and a forged host would move the audience (RFC 8707) to another resource's URL. For the same reason
 *    the port is the one `npm start` listens on (PORT, which it sets once it knows it), whatever port the Host
 *    names: another loopback port is another server, whose tokens are not ours.
 */

import { parseAuthority } from './authority.js';

type Env = Record<string, string | undefined>;

/** The first of a comma-separated list of hosts, when it is an authority (authority.ts); anything else is not used. */
function firstHost(value: string | null | undefined): string | undefined {
  return parseAuthority(value?.split(',')[0]?.trim())?.host;
}

function forwardedProto(request: Request): string {
  const proto = request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return proto === 'http' ? 'http' : 'https';
}

/** The origin (scheme://host[:port]) this request should call itself by. */
export function publicOrigin(request: Request, env: Env = process.env): string {
  if (env.PUBLIC_URL) return new URL(env.PUBLIC_URL).origin;
  const url = new URL(request.url);
  if (env.VERCEL) {
    const host = firstHost(request.headers.get('x-forwarded-host')) ?? firstHost(env.VERCEL_BRANCH_URL)
      ?? firstHost(env.VERCEL_URL) ?? firstHost(request.headers.get('host'));
    if (host) return `${forwardedProto(request)}://${host}`;
  }
  const host = firstHost(request.headers.get('host'));
  if (!host) return url.origin;
  const origin = new URL(`${url.protocol}//${host}`);
  const served = servedPort(env);
  if (!env.VERCEL && served !== undefined) origin.port = served;
  return origin.origin;
}

/** The port `npm start` serves (PORT), when it is one. */
function servedPort(env: Env): string | undefined {
  const port = env.PORT?.trim();
  return port && /^\d{1,5}$/.test(port) && Number(port) > 0 && Number(port) <= 65_535 ? port : undefined;
}

/** The MCP endpoint paths a deployment serves (vercel.json rewrites /mcp to /api/mcp). */
export const MCP_PATHS = ['/mcp', '/api/mcp'] as const;

/** The canonical MCP URL users paste: `<origin>/mcp`. */
export function mcpUrl(origin: string, path: string = MCP_PATHS[0]): string {
  return `${origin}${path}`;
}

/** RFC 9728 §3: the well-known suffix of protected resource metadata. */
export const PRM_PATH = '/.well-known/oauth-protected-resource';

/**
 * Where the 401 challenge points: `<mcp-url>/oauth-protected-resource`. RFC 9728 §5.1 lets `resource_metadata`
 * name any URL, and Vercel documents `/.well-known` as reserved for rewrites, so sign-in must not depend on one;
 * the well-known locations stay served for clients that probe them.
 */
export const PRM_SUFFIX = '/oauth-protected-resource';

/** The metadata URL a challenge names for an MCP path (e.g. /mcp/oauth-protected-resource). */
export function resourceMetadataUrl(origin: string, path: string = MCP_PATHS[0]): string {
  return `${origin}${path}${PRM_SUFFIX}`;
}

/** The RFC 9728 §3.1 path-suffixed well-known metadata URL (e.g. /.well-known/oauth-protected-resource/mcp). */
export function wellKnownResourceMetadataUrl(origin: string, path: string = MCP_PATHS[0]): string {
  return `${origin}${PRM_PATH}${path}`;
}

/** `/.well-known/mcp.json` is also served here, a path that needs no `/.well-known` rewrite. */
export const MCP_JSON_PATH = '/mcp.json';

/** The domain's AI Catalog (AI Catalog specification §Well-Known URI), which lists the server card. */
export const AI_CATALOG_PATH = '/.well-known/ai-catalog.json';
