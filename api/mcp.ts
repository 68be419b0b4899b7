/**
 * The MCP endpoint (/mcp and /api/mcp): Streamable HTTP for both eras on one URL.
 * `createMcpHandler` lists the request path in order; each step answers early or lets the request go on.
 */

import { createDefaultApp, type App } from '../lib/app.js';
import { classifyBody } from '../lib/protocol/classify.js';
import { createBatchCheck } from '../lib/http/batch.js';
import { readJsonBody } from '../lib/http/body.js';
import { DEFAULT_REQUEST_BOUNDS, type RequestBounds } from '../lib/http/bounds.js';
import { answerPreflight, withCors } from '../lib/http/cors.js';
import { createConfiguredHandler } from '../lib/http/configured.js';
import { checkAccept, checkContentType } from '../lib/http/negotiate.js';
import { createOriginCheck } from '../lib/http/origin.js';
import { errorReply, methodNotAllowed } from '../lib/http/replies.js';
import { protocolVersionHeader } from '../lib/http/protocol-version.js';
import { createResumptions, resumeStream } from '../lib/http/resume.js';
import { LogMemory } from '../lib/http/sse.js';
import { serveLegacy, serveModern, type ServeDeps } from '../lib/http/serve.js';
import { readCallSlots } from '../lib/limits/concurrency.js';
import { createLazyHealthHandler, DEFAULT_HEALTH_TIMEOUT_MS, isHealthProbe } from '../lib/observe/health-route.js';
import { Observation } from '../lib/observe/observation.js';
import { createReport, readLogLevel } from '../lib/observe/request-log.js';
import { startupLogLine } from '../lib/observe/startup.js';
import { SERVER_INFO } from '../lib/identity.js';
import { Caller } from '../lib/server/caller.js';
import type { Principal } from '../lib/server/context.js';
import { INTERNAL_ERROR } from '../lib/protocol/errors.js';
import { H_LAST_EVENT_ID, H_RETRY_AFTER } from '../lib/protocol/headers.js';
import { StoreUnavailableError } from '../lib/store/types.js';

/** Seconds a client should wait after a store outage: Upstash client retries take about half a second. */
const STORE_RETRY_AFTER_S = 2;

export type FetchHandler = (request: Request) => Promise<Response>;

export function createMcpHandler(app: App, bounds: RequestBounds = app.bounds ?? DEFAULT_REQUEST_BOUNDS): FetchHandler {
  // A 403 for a missing tool scope carries the step-up challenge (MCP authorization §Scope Challenge Handling).
  const deps: ServeDeps = {
    dispatch: app.dispatch,
    kept: app.kept,
    store: app.store,
    sessions: app.sessions,
    limits: app.limits,
    bounds,
    errorHeaders: app.auth?.errorHeaders,
    // A custom app without slots gets the environment's, as the deployment's app does: on Vercel, each client's address its own share.
    calls: app.calls ?? readCallSlots(process.env),
    logMemory: new LogMemory(bounds.maxStreamLogMemoryBytes),
  };
  const { checkOrigin, isAllowedOrigin } = createOriginCheck(app.origin);
  const { byIp: limitByIp, byPrincipal: limitByPrincipal } = app.limits ?? {};
  const checkBatch = createBatchCheck(bounds.maxBatch, app.limits);
  const resumptions = createResumptions(bounds.maxResumedStreams);
  const report = createReport(app.requestLog ?? false);
  const health = createLazyHealthHandler({
    name: SERVER_INFO.name, version: SERVER_INFO.version, store: app.store, signIn: app.auth?.modes, mounts: app.mounts, timeoutMs: app.healthTimeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS,
  });

  async function handle(request: Request, observation: Observation): Promise<Response> {
    const forbidden = checkOrigin(request);
    if (forbidden) return forbidden;
    if (request.method !== 'POST' && !isResumption(request)) return methodNotAllowed();
    const overIpLimit = limitByIp && (await limitByIp(request));
    if (overIpLimit) return overIpLimit;
    const principal = app.auth ? await app.auth.authenticate(request) : undefined;
    if (principal instanceof Response) return principal;
    const overPrincipalLimit = principal && limitByPrincipal && (await limitByPrincipal(principal));
    if (overPrincipalLimit) return overPrincipalLimit;
    if (request.method === 'GET') return resume(request, principal);
    const refused = checkAccept(request) ?? checkContentType(request);
    if (refused) return refused;
    const body = await readJsonBody(request, bounds);
    if (body instanceof Response) return body;
    const classified = classifyBody(body.value, request.headers);
    observation.noteMessages(classified);
    if (classified.kind === 'reject') return errorReply(classified.error.status, classified.error, classified.id, protocolVersionHeader(classified.version));
    const overBatchBounds = await checkBatch(request, classified, principal);
    if (overBatchBounds) return overBatchBounds;
    if (classified.kind === 'modern') return serveModern(request, classified, deps, observation, principal);
    const session = await app.sessions.read(request, principal);
    if (session instanceof Response) return session;
    return serveLegacy(request, classified, deps, observation, principal, session);
  }

  /** Sessions are a legacy-wire notion: resuming a stream is one, and only its owner may do it. */
  async function resume(request: Request, principal: Principal | undefined): Promise<Response> {
    const session = await app.sessions.read(request, principal);
    if (session instanceof Response) return session;
    return resumeStream(request, deps.store, new Caller(principal, session).key, resumptions);
  }

  return async function handleMcp(request) {
    // GET /health and /api/health reach this function (vercel.json), so a cron that probes it keeps it warm.
    if (isHealthProbe(request)) return checkOrigin(request) ?? health(request);
    const preflight = answerPreflight(request, isAllowedOrigin);
    if (preflight) return preflight;
    // One log line and, with an OpenTelemetry SDK registered, one span per request (docs/observability.md "Observability").
    const observation = new Observation(request);
    let response: Response;
    try {
      response = withCors(request, await handle(request, observation), isAllowedOrigin);
    } catch (error) {
      observation.noteFailure(error);
      response = withCors(request, failureReply(error), isAllowedOrigin);
    }
    report(observation, response.status);
    app.usage?.(observation, response.status, request);
    return response;
  };
}

/** A failure no step turned into a reply: a store outage is the client's to retry (503), anything else a 500. */
function failureReply(error: unknown): Response {
  if (error instanceof StoreUnavailableError) {
    console.error(`[agent-mcp] ${error.message}`, error.cause);
    return errorReply(503, { code: INTERNAL_ERROR, message: 'The shared store is unavailable; try again shortly.' }, null, {
      [H_RETRY_AFTER]: String(STORE_RETRY_AFTER_S),
    });
  }
  console.error('[agent-mcp] unexpected failure:', error);
  return errorReply(500, { code: INTERNAL_ERROR, message: 'Internal error.' });
}

/** The one GET we serve: resuming a 2025-11-25 SSE stream (SEP-1699). */
function isResumption(request: Request): boolean {
  return request.method === 'GET' && request.headers.has(H_LAST_EVENT_ID);
}

/**
 * Built on the first request of an instance, which logs what it serves as one JSON line; a configuration error
 * answers every request instead (lib/http/configured.ts).
 */
export default {
  fetch: createConfiguredHandler(() => {
    const app = createDefaultApp();
    if (app.startup && readLogLevel() !== 'off') console.log(startupLogLine(app.startup, readLogLevel() === 'debug'));
    return createMcpHandler(app);
  }),
};
