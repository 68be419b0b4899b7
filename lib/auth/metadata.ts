/**
 * RFC 9728 Protected Resource Metadata, at the root `/.well-known/oauth-protected-resource`, path-suffixed
 * for each MCP path (`…/mcp`, `…/api/mcp`), and at `<mcp-url>/oauth-protected-resource`, where the 401 challenge
 * points (lib/http/public-url.ts). `resource` is the exact MCP URL a user pastes, so clients' RFC 8707
 * resource indicators match the audience we verify. Served only when a mode whose tokens an authorization server
 * issues is on (AUTH_ISSUER, AUTH_SERVER_KEY: lib/auth/modes).
 */

import { notPublished, serveDocument } from '../discovery/respond.js';
import { readConfig } from '../config.js';
import { createOriginCheck, originPolicyOf } from '../http/origin.js';
import { MCP_PATHS, PRM_PATH, PRM_SUFFIX, mcpUrl, publicOrigin } from '../http/public-url.js';
import { issuerFor } from './config.js';
import { oauthOf, readSignIn } from './modes/index.js';

type Env = Record<string, string | undefined>;

/**
 * Which MCP path a metadata request is for (RFC 9728 §3.1): the suffix after the well-known segment, or, when
 * the function sees the rewrite's destination, the `path` parameter Vercel adds for the unused `:path*`; or the
 * MCP path before `/oauth-protected-resource`, the URL the 401 challenge names; or the MCP path before the
 * whole well-known segment (`/api/mcp/.well-known/oauth-protected-resource`, the seed tutorial's location).
 */
function resourcePath(request: Request): string | undefined {
  const url = new URL(request.url);
  const fromQuery = url.searchParams.get('path');
  const at = url.pathname.indexOf(PRM_PATH);
  if (fromQuery === null && at > 0) {
    const path = url.pathname.slice(0, at);
    return url.pathname.length === at + PRM_PATH.length && (MCP_PATHS as readonly string[]).includes(path) ? path : undefined;
  }
  if (fromQuery === null && at < 0 && url.pathname.endsWith(PRM_SUFFIX)) {
    const path = url.pathname.slice(0, -PRM_SUFFIX.length);
    return (MCP_PATHS as readonly string[]).includes(path) ? path : undefined;
  }
  const suffix = fromQuery !== null ? `/${fromQuery.replace(/^\/+/, '')}` : at >= 0 ? url.pathname.slice(at + PRM_PATH.length) : '';
  if (suffix === '' || suffix === '/') return MCP_PATHS[0];
  return (MCP_PATHS as readonly string[]).includes(suffix) ? suffix : undefined;
}

/** The handler of every PRM location; 404 when auth is off. Its `resource` names the Host, checked first as the MCP endpoint checks it. */
export function createProtectedResourceHandler(env: Env = process.env) {
  const signIn = readSignIn(env);
  const config = oauthOf(signIn);
  // With API keys alone there is no authorization server to name, so no metadata: a client sends the key it was given.
  const absent = signIn.length
    ? 'This server has no OAuth authorization server: it takes API keys (Authorization: Bearer <key>).'
    : 'This server does not require authorization (neither AUTH_ISSUER nor AUTH_SERVER_KEY is set).';
  const { checkHost } = createOriginCheck(originPolicyOf(readConfig(env)));
  return async function handleProtectedResource(request: Request): Promise<Response> {
    const refused = checkHost(request);
    if (refused) return refused;
    if (!config) return notPublished(absent);
    const path = resourcePath(request);
    if (!path) return notPublished('No protected resource at this path.');
    const origin = publicOrigin(request, env);
    return serveDocument(request, {
      // Always the URL itself: clients check it against the URL they were given (RFC 9728 §3.3); AUTH_AUDIENCE
      // only changes the `aud` we accept from an authorization server that does not honour RFC 8707.
      resource: mcpUrl(origin, path),
      authorization_servers: [issuerFor(config, origin)],
      scopes_supported: config.scopes,
      bearer_methods_supported: ['header'],
      resource_name: 'agent-mcp',
      resource_documentation: `${origin}/`,
    }, 'application/json', 300);
  };
}
