/**
 * The span attributes Vercel's MCP observability reads, named and valued as mcp-handler 2.4.0 sets them on each MCP
 * message span (dist/index.mjs: src/telemetry/attributes.ts and index.ts `callerAttributes`; docs/observability.md):
 * the endpoint's label, the kind of client, whether it was authorized, and how the message ended (outcome.ts).
 * Loaded with the spans (spans.ts), only once an OpenTelemetry SDK is registered.
 */

export const VERCEL_RPC_ROUTE = 'vercel.rpc.route';
export const VERCEL_RPC_CLIENT_NAME = 'vercel.rpc.client.name';
export const VERCEL_RPC_AUTH_OUTCOME = 'vercel.rpc.auth.outcome';
export const VERCEL_RPC_OUTCOME = 'vercel.rpc.outcome';

/**
 * mcp-handler's default `telemetry.route`: a bounded label for the endpoint, never its URL path (dynamic segments would
 * make every value distinct). agent-mcp has one MCP endpoint.
 */
export const ROUTE = 'mcp';

type Rules = ReadonlyArray<readonly [RegExp, string]>;

/** Clients recognisable wherever their name appears (mcp-handler SPECIFIC_CLIENT_RULES). */
const SPECIFIC_CLIENTS: Rules = [
  [/claude-code/i, 'claude-code'],
  [/codex/i, 'codex'],
  [/Visual Studio Code|\bvscode\b|copilot/i, 'vscode'],
  [/windsurf|codeium/i, 'windsurf'],
  [/gemini/i, 'gemini'],
  [/grok/i, 'grok'],
  [/hermes-agent|nousresearch/i, 'hermes'],
  [/mcp-inspector|modelcontextprotocol\/inspector/i, 'mcp-inspector'],
];

/** Clients recognisable by the start of their User-Agent (mcp-handler USER_AGENT_RULES). */
const USER_AGENTS: Rules = [
  [/^Claude-User\b/i, 'claude'],
  [/^openai-mcp\b/i, 'chatgpt'],
  [/^Cursor\b/i, 'cursor'],
  [/^Muse\b/i, 'muse'],
  [/^v0\b/i, 'v0'],
];

/**
 * Clients recognisable by the `clientInfo.name` they send (legacy `initialize`, 2026-07-28 `_meta`), which mcp-handler
 * does not read: the User-Agent rules, which ChatGPT's `openai-mcp` and Cursor's `cursor-vscode` also match, and the
 * name Claude's apps send.
 */
const CLIENT_INFO: Rules = [...USER_AGENTS, [/^claude-ai\b/i, 'claude']];

/** Clients recognisable by the host of their CIMD client id (mcp-handler CLIENT_HOST_RULES). */
const CLIENT_HOSTS: Rules = [
  [/(^|\.)claude\.ai$/, 'claude'],
  [/(^|\.)(chatgpt|openai)\.com$/, 'chatgpt'],
  [/(^|\.)v0\.(app|dev)$/, 'v0'],
];

/** A User-Agent of a general HTTP library: some program, not a known MCP client (mcp-handler HTTP_LIBRARY). */
const HTTP_LIBRARY = /^(python-httpx2?|python-requests|aiohttp|undici|node|node-fetch|axios|Go-http-client|curl|okhttp|Java)\b/i;

const MAX_USER_AGENT = 256;

function firstMatch(rules: Rules, candidate: string | undefined): string | undefined {
  if (!candidate) return undefined;
  return rules.find(([pattern]) => pattern.test(candidate))?.[1];
}

/** A client id that is a Client ID Metadata Document URL (https), parsed; otherwise undefined. */
function metadataDocumentUrl(clientId: string | undefined): URL | undefined {
  if (!clientId || !/^https:\/\//i.test(clientId)) return undefined;
  return URL.canParse(clientId) ? new URL(clientId) : undefined;
}

export interface ClientClues {
  userAgent?: string;
  /** `clientInfo.name` as the client sent it. */
  clientInfoName?: string;
  /** The verified token's client id (a CIMD URL for clients that use one). */
  clientId?: string;
}

/**
 * `vercel.rpc.client.name`: one of a small set of known clients, else `http-library` for a plain HTTP library's
 * User-Agent, else `other`. The User-Agent first, then the client's own name, then its CIMD client id, as mcp-handler
 * orders its clues (the client name is ours, between them). Every clue is the client's to choose, and the answer is
 * only ever one of these labels, so a client can mislabel itself but never make a new value.
 */
export function clientNameOf({ userAgent, clientInfoName, clientId }: ClientClues): string {
  const agent = userAgent?.slice(0, MAX_USER_AGENT);
  const url = metadataDocumentUrl(clientId);
  return firstMatch(SPECIFIC_CLIENTS, agent)
    ?? firstMatch(USER_AGENTS, agent)
    ?? firstMatch(SPECIFIC_CLIENTS, clientInfoName)
    ?? firstMatch(CLIENT_INFO, clientInfoName)
    ?? firstMatch(SPECIFIC_CLIENTS, url && `${url.hostname}${url.pathname}`)
    ?? firstMatch(CLIENT_HOSTS, url?.hostname)
    ?? (agent !== undefined && HTTP_LIBRARY.test(agent) ? 'http-library' : 'other');
}
