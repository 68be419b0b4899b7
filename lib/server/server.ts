/** The server's identity and settings, resolved once; handlers read it, never module state. */

import type { Registry } from './registry.js';
import { createStateSigner, type StateSigner } from './request-state.js';

export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
}

export interface ServerOptions {
  registry: Registry;
  info: ServerInfo;
  instructions?: string;
  /** HMAC secret for MRTR `requestState`; must be shared by every instance of a deployment. */
  stateSecret: string;
  pageSize?: number;
  /** Caching hints on the modern wire (server/utilities/caching). */
  listTtlMs?: number;
  readTtlMs?: number;
}

export interface Server {
  registry: Registry;
  info: ServerInfo;
  instructions?: string;
  signer: StateSigner;
  pageSize: number;
  listTtlMs: number;
  readTtlMs: number;
  capabilities: { legacy: Record<string, unknown>; modern: Record<string, unknown> };
}

export function createServer(options: ServerOptions): Server {
  if (!options.stateSecret) throw new TypeError('stateSecret must be a non-empty string.');
  const { registry } = options;
  const hasResources = registry.resources.size > 0 || registry.templates.length > 0;
  const hasPrompts = registry.prompts.size > 0;
  const common = {
    ...(registry.tools.size > 0 ? { tools: { listChanged: false } } : {}),
    ...(hasPrompts ? { prompts: { listChanged: false } } : {}),
    logging: {},
    completions: {},
  };
  return {
    registry,
    info: options.info,
    instructions: options.instructions,
    signer: createStateSigner(options.stateSecret),
    pageSize: options.pageSize ?? 100,
    listTtlMs: options.listTtlMs ?? 60_000,
    readTtlMs: options.readTtlMs ?? 0,
    capabilities: {
      // Legacy subscriptions are accepted as no-ops: a stateless server has no session to notify later.
      legacy: { ...common, ...(hasResources ? { resources: { subscribe: true, listChanged: false } } : {}) },
      modern: { ...common, ...(hasResources ? { resources: {} } : {}) },
    },
  };
}
