/**
 * The MCP endpoint (/mcp and /api/mcp): Streamable HTTP for both eras on one URL.
 * `createMcpHandler` lists the request path in order; each step answers early or lets the request go on.
 */

import { readConfig } from '../lib/config.js';
import { SERVER_INFO, INSTRUCTIONS, defaultRegistry } from '../lib/app.js';
import { classifyBody } from '../lib/protocol/classify.js';
import { createDispatcher } from '../lib/server/dispatch.js';
import { createServer, type ServerOptions } from '../lib/server/server.js';
import type { Registry } from '../lib/server/registry.js';
import { DEFAULT_MAX_BODY_BYTES, readJsonBody } from '../lib/http/body.js';
import { answerPreflight, withCors } from '../lib/http/cors.js';
import { checkAccept, checkContentType } from '../lib/http/negotiate.js';
import { createOriginCheck, type OriginPolicy } from '../lib/http/origin.js';
import { errorReply, methodNotAllowed } from '../lib/http/replies.js';
import { resumeStream } from '../lib/http/resume.js';
import { serveLegacy, serveModern } from '../lib/http/serve.js';
import { MemoryStore } from '../lib/store/memory.js';
import type { Store } from '../lib/store/types.js';

export interface McpHandlerOptions extends Omit<ServerOptions, 'registry'> {
  registry: Registry;
  store: Store;
  origin: OriginPolicy;
  maxBodyBytes?: number;
}

export type FetchHandler = (request: Request) => Promise<Response>;

export function createMcpHandler(options: McpHandlerOptions): FetchHandler {
  const deps = { dispatch: createDispatcher(createServer(options)), store: options.store };
  const { checkOrigin, isAllowedOrigin } = createOriginCheck(options.origin);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  async function handle(request: Request): Promise<Response> {
    const forbidden = checkOrigin(request);
    if (forbidden) return forbidden;
    if (request.method === 'GET') return resumeStream(request, deps.store);
    if (request.method !== 'POST') return methodNotAllowed();
    // Rate limits and bearer auth join the path here (per-IP limit, token → principal, per-principal limit).
    const refused = checkAccept(request) ?? checkContentType(request);
    if (refused) return refused;
    const body = await readJsonBody(request, maxBodyBytes);
    if (body instanceof Response) return body;
    const classified = classifyBody(body.value, request.headers);
    if (classified.kind === 'reject') return errorReply(classified.error.status, classified.error, classified.id);
    if (classified.kind === 'modern') return serveModern(request, classified, deps);
    return serveLegacy(request, classified, deps);
  }

  return async function handleMcp(request) {
    const preflight = answerPreflight(request, isAllowedOrigin);
    if (preflight) return preflight;
    try {
      return withCors(request, await handle(request), isAllowedOrigin);
    } catch (error) {
      console.error('[agent-mcp] unexpected failure:', error);
      return withCors(request, errorReply(500, { code: -32603, message: 'Internal error.' }), isAllowedOrigin);
    }
  };
}

/** The deployment's handler from the environment, built on first use so importing stays cheap. */
export function createDefaultHandler(env?: Record<string, string | undefined>): FetchHandler {
  const config = readConfig(env);
  if (config.stateSecretIsEphemeral && !config.local) {
    console.warn('[agent-mcp] MCP_STATE_SECRET is not set: MRTR requestState only verifies on this instance.');
  }
  return createMcpHandler({
    registry: defaultRegistry(config),
    info: SERVER_INFO,
    instructions: INSTRUCTIONS,
    stateSecret: config.stateSecret,
    store: new MemoryStore(),
    origin: { local: config.local, publicOrigin: config.publicUrl, allowedOrigins: new Set(config.allowedOrigins) },
  });
}

let handler: FetchHandler | undefined;

export default {
  fetch(request: Request): Promise<Response> {
    handler ??= createDefaultHandler();
    return handler(request);
  },
};
