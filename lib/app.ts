/**
 * An application: the dispatcher over a registry, the store it shares state through, and the origin policy
 * of its HTTP endpoint. The deployment's default app is built from the environment; tests and the conformance
 * server build their own from the same parts.
 */

import { agentDefinitions } from './agent/index.js';
import { readConfig } from './config.js';
import type { OriginPolicy } from './http/origin.js';
import { createDispatcher, type Dispatch } from './server/dispatch.js';
import { InProcessTransport } from './server/in-process.js';
import type { Principal } from './server/context.js';
import { createRegistry, type RegistryDefinition } from './server/registry.js';
import { createServer, type ServerInfo, type ServerOptions } from './server/server.js';
import { MemoryStore } from './store/memory.js';
import type { Store } from './store/types.js';

export const SERVER_INFO: ServerInfo = {
  name: 'agent-mcp',
  title: 'agent-mcp',
  version: '0.1.0',
  description: 'Any AI agent as an MCP server: chat with it as a tool.',
};

export const INSTRUCTIONS =
  'This server puts AI agents on MCP. Call chat_with_agent to send a message to an agent and get its reply.';

export interface App {
  dispatch: Dispatch;
  store: Store;
  origin: OriginPolicy;
  /** A client transport on this app with no network hop; `principal` counts as a verified token. */
  connectInProcess(principal?: Principal): InProcessTransport;
}

export interface AppOptions extends Omit<ServerOptions, 'registry' | 'info'> {
  definitions: RegistryDefinition[];
  info?: ServerInfo;
  store?: Store;
  origin: OriginPolicy;
}

export function createApp(options: AppOptions): App {
  const server = createServer({ ...options, info: options.info ?? SERVER_INFO, registry: createRegistry(...options.definitions) });
  const dispatch = createDispatcher(server);
  const store = options.store ?? new MemoryStore();
  return {
    dispatch,
    store,
    origin: options.origin,
    connectInProcess: (principal) => new InProcessTransport({ dispatch, store, principal }),
  };
}

/** What the deployment serves: the agents configured in the environment (README "Agents"). */
export function defaultDefinitions(env: Record<string, string | undefined> = process.env): RegistryDefinition[] {
  return [agentDefinitions(env)];
}

/** The deployment's app from the environment (README "Environment"). */
export function createDefaultApp(env?: Record<string, string | undefined>): App {
  const config = readConfig(env);
  if (config.stateSecretIsEphemeral && !config.local) {
    console.warn('[agent-mcp] MCP_STATE_SECRET is not set: MRTR requestState only verifies on this instance.');
  }
  return createApp({
    definitions: defaultDefinitions(env ?? process.env),
    instructions: INSTRUCTIONS,
    stateSecret: config.stateSecret,
    origin: { local: config.local, publicOrigin: config.publicUrl, allowedOrigins: new Set(config.allowedOrigins) },
  });
}
