/**
 * One connection to a mounted MCP server through the official client, and what the server offers.
 * The client package is imported here, dynamically, so a deployment without mounts never loads it.
 */

import type { Client, Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import { METHOD_NOT_FOUND } from '../protocol/errors.js';
import type { MountConfig } from './config.js';

/** What a mounted server offered when it was listed. */
export interface MountListings {
  tools: Tool[];
  resources: Resource[];
  templates: ResourceTemplate[];
  prompts: Prompt[];
}

export interface MountSession {
  client: Pick<Client, 'callTool' | 'readResource' | 'getPrompt' | 'complete' | 'getServerCapabilities'>;
  listings: MountListings;
  close(): Promise<void>;
}

/** Opens a session on a mount; rejects on failure, or when connecting and listing outlast `connectTimeoutMs`. */
export type OpenMount = (config: MountConfig) => Promise<MountSession>;

export interface ClientInfo {
  name: string;
  version: string;
}

/** Connects with the official client over Streamable HTTP and lists tools, resources and prompts. */
export function createMountOpener(clientInfo: ClientInfo): OpenMount {
  return async function openMount(config) {
    const sdk = await import('@modelcontextprotocol/client');
    const client = new sdk.Client(clientInfo, { versionNegotiation: { mode: config.era } });
    const transport = new sdk.StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`no answer within ${config.connectTimeoutMs} ms`)), config.connectTimeoutMs);
    const options = { signal: deadline.signal, timeout: config.connectTimeoutMs };
    try {
      await client.connect(transport, options);
      const listings = await listOfferings(client, options);
      return { client, listings, close: () => client.close() };
    } catch (error) {
      await client.close().catch(() => undefined);
      throw deadline.signal.aborted ? deadline.signal.reason : error;
    } finally {
      clearTimeout(timer);
    }
  };
}

async function listOfferings(client: Client, options: { signal: AbortSignal; timeout: number }): Promise<MountListings> {
  const offers = client.getServerCapabilities() ?? {};
  const [tools, resources, templates, prompts] = await Promise.all([
    offers.tools ? client.listTools(undefined, options).then((r) => r.tools) : [],
    offers.resources ? client.listResources(undefined, options).then((r) => r.resources) : [],
    offers.resources ? orNone(client.listResourceTemplates(undefined, options).then((r) => r.resourceTemplates)) : [],
    offers.prompts ? client.listPrompts(undefined, options).then((r) => r.prompts) : [],
  ]);
  return { tools, resources, templates, prompts };
}

/** Some servers that offer resources have no templates and answer -32601 (Method not found): that is none. */
function orNone<T>(list: Promise<T[]>): Promise<T[]> {
  return list.catch((error: { code?: unknown }) => {
    if (error?.code === METHOD_NOT_FOUND) return [];
    throw error;
  });
}
