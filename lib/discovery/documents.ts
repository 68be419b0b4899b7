/**
 * `/.well-known/mcp.json` and the MCP Server Card at `<mcp-url>/server-card` (SEP-2127 draft, experimental
 * extension `application/mcp-server-card+json`). Both say what `server/discover` and `initialize` say: the
 * same server info and versions, derived per deployment so previews describe themselves.
 */

import { INSTRUCTIONS, SERVER_INFO } from '../identity.js';
import { issuerFor, readAuthConfig, type AuthConfig } from '../auth/config.js';
import { readConfig } from '../config.js';
import { createOriginCheck, originPolicyOf } from '../http/origin.js';
import { MCP_JSON_PATH, MCP_PATHS, mcpUrl, publicOrigin, resourceMetadataUrl } from '../http/public-url.js';
import { MODERN_VERSION, SUPPORTED_VERSIONS } from '../protocol/revisions.js';
import { serveDocument } from './respond.js';

type Env = Record<string, string | undefined>;

/** The server card's media type (experimental-ext-server-card). */
export const SERVER_CARD_TYPE = 'application/mcp-server-card+json';
const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

/** The transport name both documents use (MCP registry server.json `remotes[].type`). */
const TRANSPORT = 'streamable-http';

/** The server card's `_meta` key linking this deployment's mcp.json. */
export const MCP_DISCOVERY_KEY = 'agent-mcp/mcp.json';

/** A reverse-DNS card name with exactly one `/` (SEP-2127), from the host: agent.example.com → com.example.agent/agent-mcp. */
export function cardName(origin: string): string {
  const host = new URL(origin).hostname.replace(/[^A-Za-z0-9.-]/g, '');
  return `${host.split('.').filter(Boolean).reverse().join('.') || 'localhost'}/${SERVER_INFO.name}`;
}

/**
 * `/.well-known/mcp.json`: where and how to connect, and whether OAuth is needed (`auth` undefined: public).
 * `server` repeats name, version, URL and transport in the shape of the widely copied seed tutorial
 * ("Turn your agent into an MCP server", step 6), so clients written against it find `server.url`.
 */
export function mcpDocument(origin: string, auth: AuthConfig | undefined) {
  const url = mcpUrl(origin);
  return {
    protocolVersion: MODERN_VERSION,
    supportedVersions: SUPPORTED_VERSIONS,
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
    url,
    transport: TRANSPORT,
    server: { name: SERVER_INFO.name, version: SERVER_INFO.version, url, transport: TRANSPORT },
    auth: auth
      ? { type: 'oauth-protected-resource', resourceMetadata: resourceMetadataUrl(origin), authorizationServers: [issuerFor(auth, origin)], scopes: auth.scopes }
      : { type: 'public' },
    serverCard: `${mcpUrl(origin)}/server-card`,
  };
}

/** The MCP Server Card (SEP-2127 draft fields) of the deployment at `origin`. */
export function serverCard(origin: string) {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: cardName(origin),
    title: SERVER_INFO.title,
    version: SERVER_INFO.version,
    description: (SERVER_INFO.description ?? 'An MCP server.').slice(0, 100),
    websiteUrl: `${origin}/`,
    remotes: [{ type: TRANSPORT, url: mcpUrl(origin), supportedProtocolVersions: SUPPORTED_VERSIONS }],
    // Extension data goes under `_meta` (as in the registry's server.json the card derives from).
    _meta: { [MCP_DISCOVERY_KEY]: `${origin}${MCP_JSON_PATH}` },
  };
}

/**
 * The handler of both documents; configuration is read once, here. Both name the Host a request reached, so the
 * Host is checked as the MCP endpoint checks it (an authority; served locally, a loopback name) before it is used.
 */
export function createDiscoveryHandler(env: Env = process.env) {
  const auth = readAuthConfig(env);
  const { checkHost } = createOriginCheck(originPolicyOf(readConfig(env)));
  return async function handleDiscovery(request: Request): Promise<Response> {
    const refused = checkHost(request);
    if (refused) return refused;
    const url = new URL(request.url);
    const origin = publicOrigin(request, env);
    const card = url.searchParams.get('doc') === 'card' || MCP_PATHS.some((p) => url.pathname === `${p}/server-card`);
    return card
      ? serveDocument(request, serverCard(origin), SERVER_CARD_TYPE, 3600)
      : serveDocument(request, mcpDocument(origin, auth), 'application/json', 300);
  };
}
