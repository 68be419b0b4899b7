/**
 * The MCP endpoint (/mcp and /api/mcp): Streamable HTTP for both eras on one URL.
 * `createMcpHandler` lists the request path in order; each step answers early or lets the request go on.
 */

import { createDefaultApp, type App } from '../lib/app.js';
import { classifyBody } from '../lib/protocol/classify.js';
import { DEFAULT_MAX_BODY_BYTES, readJsonBody } from '../lib/http/body.js';
import { answerPreflight, withCors } from '../lib/http/cors.js';
import { createConfiguredHandler } from '../lib/http/configured.js';
import { checkAccept, checkContentType } from '../lib/http/negotiate.js';
import { createOriginCheck } from '../lib/http/origin.js';
import { errorReply, methodNotAllowed } from '../lib/http/replies.js';
import { resumeStream } from '../lib/http/resume.js';
import { serveLegacy, serveModern, type ServeDeps } from '../lib/http/serve.js';
import { INTERNAL_ERROR } from '../lib/protocol/errors.js';
import { H_LAST_EVENT_ID } from '../lib/protocol/headers.js';

export type FetchHandler = (request: Request) => Promise<Response>;

export function createMcpHandler(app: App, maxBodyBytes = DEFAULT_MAX_BODY_BYTES): FetchHandler {
  // A 403 for a missing tool scope carries the step-up challenge (MCP authorization §Scope Challenge Handling).
  const deps: ServeDeps = { dispatch: app.dispatch, store: app.store, errorHeaders: app.auth?.errorHeaders };
  const { checkOrigin, isAllowedOrigin } = createOriginCheck(app.origin);
  const { byIp: limitByIp, byPrincipal: limitByPrincipal } = app.limits ?? {};

  async function handle(request: Request): Promise<Response> {
    const forbidden = checkOrigin(request);
    if (forbidden) return forbidden;
    if (request.method !== 'POST' && !isResumption(request)) return methodNotAllowed();
    const overIpLimit = limitByIp && (await limitByIp(request));
    if (overIpLimit) return overIpLimit;
    const principal = app.auth ? await app.auth.authenticate(request) : undefined;
    if (principal instanceof Response) return principal;
    const overPrincipalLimit = principal && limitByPrincipal && (await limitByPrincipal(principal));
    if (overPrincipalLimit) return overPrincipalLimit;
    if (request.method === 'GET') return resumeStream(request, deps.store, principal);
    const refused = checkAccept(request) ?? checkContentType(request);
    if (refused) return refused;
    const body = await readJsonBody(request, maxBodyBytes);
    if (body instanceof Response) return body;
    const classified = classifyBody(body.value, request.headers);
    if (classified.kind === 'reject') return errorReply(classified.error.status, classified.error, classified.id);
    if (classified.kind === 'modern') return serveModern(request, classified, deps, principal);
    return serveLegacy(request, classified, deps, principal);
  }

  return async function handleMcp(request) {
    const preflight = answerPreflight(request, isAllowedOrigin);
    if (preflight) return preflight;
    try {
      return withCors(request, await handle(request), isAllowedOrigin);
    } catch (error) {
      console.error('[agent-mcp] unexpected failure:', error);
      return withCors(request, errorReply(500, { code: INTERNAL_ERROR, message: 'Internal error.' }), isAllowedOrigin);
    }
  };
}

/** The one GET we serve: resuming a 2025-11-25 SSE stream (SEP-1699). */
function isResumption(request: Request): boolean {
  return request.method === 'GET' && request.headers.has(H_LAST_EVENT_ID);
}

/** Built on the first request of an instance; a configuration error answers every request (lib/http/configured.ts). */
export default {
  fetch: createConfiguredHandler(() => createMcpHandler(createDefaultApp())),
};
