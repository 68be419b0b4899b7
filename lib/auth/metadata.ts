/**
 * RFC 9728 Protected Resource Metadata, at the root `/.well-known/oauth-protected-resource` and path-suffixed
 * for each MCP path (`…/mcp`, `…/api/mcp`). `resource` is the exact MCP URL a user pastes, so clients' RFC 8707
 * resource indicators match the audience we verify. Served only when auth is on.
 */

import { notPublished, serveDocument } from '../discovery/respond.js';
import { MCP_PATHS, PRM_PATH, mcpUrl, publicOrigin } from '../http/public-url.js';
import { readAuthConfig } from './config.js';

type Env = Record<string, string | undefined>;

/** Which MCP path a metadata request is for: Vercel passes it as `?path=` from the rewrite, else the URL's suffix. */
function resourcePath(request: Request): string | undefined {
  const url = new URL(request.url);
  const fromQuery = url.searchParams.get('path');
  const suffix = fromQuery !== null ? (fromQuery ? `/${fromQuery}` : '') : url.pathname.slice(url.pathname.indexOf(PRM_PATH) + PRM_PATH.length);
  if (suffix === '' || suffix === '/') return MCP_PATHS[0];
  return (MCP_PATHS as readonly string[]).includes(suffix) ? suffix : undefined;
}

/** The handler of every PRM location; 404 when auth is off. */
export function createProtectedResourceHandler(env: Env = process.env) {
  const config = readAuthConfig(env);
  return async function handleProtectedResource(request: Request): Promise<Response> {
    if (!config) return notPublished('This server does not require authorization (AUTH_ISSUER is not set).');
    const path = resourcePath(request);
    if (!path) return notPublished('No protected resource at this path.');
    const origin = publicOrigin(request, env);
    return serveDocument(request, {
      resource: config.audience ?? mcpUrl(origin, path),
      authorization_servers: [config.issuer],
      scopes_supported: config.scopes,
      bearer_methods_supported: ['header'],
      resource_name: 'agent-mcp',
      resource_documentation: `${origin}/`,
    }, 'application/json', 300);
  };
}
