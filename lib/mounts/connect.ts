/**
 * One connection to a mounted MCP server through the official client, and what the server offers.
 * The client package is imported here, dynamically, so a deployment without mounts never loads it.
 */

import type { Client } from '@modelcontextprotocol/client';
import { DEFAULT_REQUEST_BOUNDS } from '../http/bounds.js';
import { CAPABILITY_BY_CLIENT_METHOD } from '../protocol/client-capabilities.js';
import { INTERNAL_ERROR, METHOD_NOT_FOUND, McpError } from '../protocol/errors.js';
import { closeCancelledStreams } from './cancelled-streams.js';
import type { MountConfig } from './config.js';
import { listOfferings, type MountListings } from './listing.js';
import { refusalText, type AnswerServer } from './relay.js';
import { boundedFetch, type ReplyBreach } from './reply-bound.js';

export type { MountListings } from './listing.js';

/** A connection of one call's own (see `MountSession.openForCall`). */
export interface CallSession {
  client: Pick<Client, 'callTool'>;
  /** Why the connection was dropped under its requests, when a reply passed a bound. */
  readonly breach?: string;
  close(): Promise<void>;
}

export interface MountSession {
  client: Pick<Client, 'callTool' | 'readResource' | 'getPrompt' | 'complete' | 'getServerCapabilities' | 'request'>;
  /** The wire this connection speaks: `modern` (2026-07-28, questions come back as MRTR) or `legacy` (pushed requests). */
  era: 'legacy' | 'modern';
  listings: MountListings;
  /**
   * Legacy wire: a connection for one call that declares `capabilities` and answers the server's requests with
   * `answer`. A 2025 server sends its questions on the stream of the call that asks them, but the client hands
   * them over without saying which call that was; a connection per call is what ties a question to its caller,
   * and lets it declare exactly what that caller declared.
   */
  openForCall(capabilities: Record<string, unknown>, answer: AnswerServer): Promise<CallSession>;
  /** Why the connection was dropped under its requests, when a reply passed a bound. */
  readonly breach?: string;
  close(): Promise<void>;
}

export interface MountEvents {
  /** A reply on one of the mount's connections passed a bound, and that connection was closed. */
  broken(reason: string): void;
}

/**
 * Opens a session on a mount; rejects on failure, when connecting and listing outlast `connectTimeoutMs`, or
 * when a reply passes `maxReplyBytes` (with the bound's error).
 */
export type OpenMount = (config: MountConfig, events?: MountEvents) => Promise<MountSession>;

export interface ClientInfo {
  name: string;
  version: string;
}

/**
 * Connects with the official client over Streamable HTTP and lists tools, resources and prompts. `maxJsonDepth`
 * (MCP_MAX_JSON_DEPTH) bounds the nesting of every reply, as `maxReplyBytes` bounds its bytes.
 */
export function createMountOpener(clientInfo: ClientInfo, maxJsonDepth = DEFAULT_REQUEST_BOUNDS.maxJsonDepth): OpenMount {
  return async function openMount(config, events) {
    // The shared connection declares no client capabilities: it serves every caller, and declaring one would
    // promise a mounted server what some caller never declared. Its requests anyway get an error saying why.
    const shared = await openClient(clientInfo, config, maxJsonDepth, {}, refuseShared(config.name), true, events);
    const { client, listings } = shared;
    const era = client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
    return {
      client,
      era,
      listings,
      async openForCall(capabilities, answer) {
        const own = await openClient(clientInfo, { ...config, era: 'legacy' }, maxJsonDepth, capabilities, answer, false, events);
        return { client: own.client, get breach() { return own.breach(); }, close: () => own.client.close() };
      },
      get breach() {
        return shared.breach();
      },
      close: () => client.close(),
    };
  };
}

type Sdk = typeof import('@modelcontextprotocol/client');

async function openClient(
  clientInfo: ClientInfo, config: MountConfig, maxJsonDepth: number, capabilities: Record<string, unknown>, answer: AnswerServer, list: boolean, events?: MountEvents,
) {
  const sdk = await import('@modelcontextprotocol/client');
  const client = new sdk.Client(clientInfo, { capabilities, versionNegotiation: { mode: config.era } });
  client.fallbackRequestHandler = (request, ctx) => answerWith(sdk, answer, request.method, request.params ?? {}, ctx.mcpReq.signal);
  let breach: ReplyBreach | undefined;
  // Past the bound the connection is closed: the client settles every pending request at once (an SSE reply
  // cut mid-stream would otherwise leave its request waiting for its timeout), and the mount reconnects.
  const onBreach = (error: ReplyBreach) => {
    if (breach) return;
    breach = error;
    void client.close().catch(() => undefined);
    events?.broken(error.message);
  };
  const transport = new sdk.StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: { headers: config.headers },
    fetch: boundedFetch(config.maxReplyBytes, onBreach, fetch, maxJsonDepth),
  });
  closeCancelledStreams(transport);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`no answer within ${config.connectTimeoutMs} ms`)), config.connectTimeoutMs);
  const options = { signal: deadline.signal, timeout: config.connectTimeoutMs };
  try {
    await client.connect(transport, options);
    const listings = list ? await listOfferings(client, config, options) : { tools: [], resources: [], templates: [], prompts: [] };
    return { client, listings, breach: () => breach?.message };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw deadline.signal.aborted ? deadline.signal.reason : breach ?? error;
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `answer`; an error it throws goes back to the server with its code and message (the SDK's -32603 otherwise). */
async function answerWith(sdk: Sdk, answer: AnswerServer, method: string, params: Record<string, unknown>, signal: AbortSignal) {
  try {
    return await answer(method, params, signal);
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    throw new sdk.ProtocolError(typeof code === 'number' ? code : INTERNAL_ERROR, String(message ?? error));
  }
}

/** The shared connection's answer to any request from the server: a refusal that names the reason. */
function refuseShared(mount: string): AnswerServer {
  return async (method) => {
    const capability = CAPABILITY_BY_CLIENT_METHOD[method];
    if (capability === undefined) throw new McpError(METHOD_NOT_FOUND, `Method not found: ${method}`);
    throw new McpError(METHOD_NOT_FOUND, refusalText(mount, method, capability));
  };
}
