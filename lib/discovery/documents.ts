/**
 * `/.well-known/mcp.json`, the MCP Server Card at `<mcp-url>/server-card` (SEP-2127, as the Server Card working
 * group's experimental-ext-server-card states it: `application/mcp-server-card+json`), and the domain's AI Catalog at
 * `/.well-known/ai-catalog.json` that lists the card (docs/protocol.md "Discovery documents" names the texts and dates followed).
 * They say what `server/discover` and `initialize` say: the same server info and versions, derived per deployment so
 * previews describe themselves.
 */

import { INSTRUCTIONS, SERVER_INFO } from '../identity.js';
import { discoveryOf, readSignIn, type ActiveMode } from '../auth/modes/index.js';
import { readConfig } from '../config.js';
import { createOriginCheck, originPolicyOf } from '../http/origin.js';
import { AI_CATALOG_PATH, MCP_JSON_PATH, MCP_PATHS, mcpUrl, publicOrigin } from '../http/public-url.js';
import { MODERN_VERSION, SUPPORTED_VERSIONS } from '../protocol/revisions.js';
import { notPublished, serveDocument } from './respond.js';

type Env = Record<string, string | undefined>;

/** The server card's media type (experimental-ext-server-card), which is also its `type` in an AI Catalog. */
export const SERVER_CARD_TYPE = 'application/mcp-server-card+json';
/** The AI Catalog's media type and the version of its format (AI Catalog specification 1.0). */
export const AI_CATALOG_TYPE = 'application/ai-catalog+json';
const AI_CATALOG_VERSION = '1.0';
const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

/** The transport name both documents use (MCP registry server.json `remotes[].type`). */
const TRANSPORT = 'streamable-http';

/** Where the server card is: `<streamable-http-url>/server-card`, the location the card's text reserves for it. */
const serverCardUrl = (origin: string) => `${mcpUrl(origin)}/server-card`;

/** The server card's `_meta` key linking this deployment's mcp.json. */
export const MCP_DISCOVERY_KEY = 'agent-mcp/mcp.json';

/** A reverse-DNS card name with exactly one `/` (SEP-2127), from the host: agent.example.com → com.example.agent/agent-mcp. */
export function cardName(origin: string): string {
  const host = new URL(origin).hostname.replace(/[^A-Za-z0-9.-]/g, '');
  return `${host.split('.').filter(Boolean).reverse().join('.') || 'localhost'}/${SERVER_INFO.name}`;
}

export { AUTH_TYPE } from '../auth/modes/mode.js';

/**
 * `/.well-known/mcp.json`: where and how to connect, and how a client authenticates: as the first sign-in mode on says
 * (OAuth, with API keys too `apiKeys: true`; API keys alone), or public with none (lib/auth/modes discoveryOf).
 * `server` repeats name, version, URL and transport in the shape of the widely copied seed tutorial
 * ("Turn your agent into an MCP server", step 6), so clients written against it find `server.url`.
 */
export function mcpDocument(origin: string, signIn: readonly ActiveMode[]) {
  const url = mcpUrl(origin);
  return {
    protocolVersion: MODERN_VERSION,
    supportedVersions: SUPPORTED_VERSIONS,
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
    url,
    transport: TRANSPORT,
    server: { name: SERVER_INFO.name, version: SERVER_INFO.version, url, transport: TRANSPORT },
    auth: discoveryOf(signIn, origin),
    serverCard: serverCardUrl(origin),
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
 * The AI Catalog of the deployment at `origin`: who hosts it, and one entry naming its server card by URL and media
 * type. The entry repeats none of the card's fields (its title, description and version stay in the card, so they
 * cannot drift); its identifier is the catalog's domain-anchored URN, `urn:air:{domain}:mcp:{card name after the /}`.
 */
export function aiCatalog(origin: string) {
  const { hostname } = new URL(origin);
  const name = cardName(origin).split('/')[1]!;
  return {
    specVersion: AI_CATALOG_VERSION,
    host: { displayName: SERVER_INFO.title ?? SERVER_INFO.name, identifier: hostname, documentationUrl: `${origin}/` },
    entries: [{ identifier: `urn:air:${hostname}:mcp:${name}`, type: SERVER_CARD_TYPE, url: serverCardUrl(origin) }],
  };
}

/** `?doc=` values vercel.json's rewrites pass; absent, the path says which. */
const DOCS = ['mcp', 'card', 'catalog'] as const;

/**
 * Which document a request asks for: a Vercel rewrite says it in `?doc=`, the local server by the path; a `doc` this
 * function does not have is none (not found: answering mcp.json would hide a misrouted rewrite).
 */
function documentOf(url: URL): (typeof DOCS)[number] | undefined {
  const doc = url.searchParams.get('doc');
  if (doc !== null && !(DOCS as readonly string[]).includes(doc)) return undefined;
  if (doc === 'card' || MCP_PATHS.some((p) => url.pathname === `${p}/server-card`)) return 'card';
  if (doc === 'catalog' || url.pathname === AI_CATALOG_PATH) return 'catalog';
  return 'mcp';
}

/**
 * The handler of the three documents; configuration is read once, here. Both name the Host a request reached, so the
 * Host is checked as the MCP endpoint checks it (an authority; served locally, a loopback name) before it is used.
 */
export function createDiscoveryHandler(env: Env = process.env) {
  const signIn = readSignIn(env);
  const { checkHost } = createOriginCheck(originPolicyOf(readConfig(env)));
  return async function handleDiscovery(request: Request): Promise<Response> {
    const refused = checkHost(request);
    if (refused) return refused;
    const origin = publicOrigin(request, env);
    switch (documentOf(new URL(request.url))) {
      case 'card': return serveDocument(request, serverCard(origin), SERVER_CARD_TYPE, 3600);
      case 'catalog': return serveDocument(request, aiCatalog(origin), AI_CATALOG_TYPE, 3600);
      case 'mcp': return serveDocument(request, mcpDocument(origin, signIn), 'application/json', 300);
      default: return notPublished(`No such discovery document: doc must be ${DOCS.join(', ')}.`);
    }
  };
}
