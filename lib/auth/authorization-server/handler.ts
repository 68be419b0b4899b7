/**
 * The built-in OAuth 2.1 authorization server (docs/oauth.md "The built-in authorization server"): one function,
 * api/oauth.ts, answering each endpoint vercel.json routes to it (paths.ts). Off unless AUTH_SERVER_KEY is set:
 * then every path answers 404, as the protected-resource metadata does with auth off. The Host is checked as the
 * MCP endpoint checks it before anything is built from it; RATE_LIMIT_IP, when set, counts every request but the
 * two public documents. A store that cannot answer is the client's to retry (503); nothing else is a 5xx but a
 * provider that does not answer (502).
 */

import { readConfig } from '../../config.js';
import { notPublished, serveDocument } from '../../discovery/respond.js';
import type { FetchHandler } from '../../http/configured.js';
import { createOriginCheck, originPolicyOf } from '../../http/origin.js';
import { publicOrigin } from '../../http/public-url.js';
import { createLimitsFromEnv } from '../../limits/index.js';
import { H_RETRY_AFTER } from '../../protocol/headers.js';
import { selectStore } from '../../store/select.js';
import { StoreUnavailableError, storeFailureSentence } from '../../store/types.js';
import { readUpstashConfig } from '../../store/upstash-config.js';
import { createCountedWarning } from '../../warn.js';
import { readAuthConfig, requireAudienceSource } from '../config.js';
import { createVerifier } from '../verify.js';
import { authorize } from './authorize.js';
import { callback } from './callback.js';
import { readAuthServerConfig } from './config.js';
import { consent } from './consent.js';
import type { Reached, ServerContext } from './context.js';
import { createAssertionChecker } from './enterprise/assertion.js';
import { createServerKeyring } from './keyring.js';
import { authorizationServerMetadata } from './metadata.js';
import { ENDPOINTS, type Endpoint } from './paths.js';
import { createSignIn } from './providers/index.js';
import { register } from './register.js';
import { errorPage, oauthError, OPEN_CORS } from './replies.js';
import { revoke } from './revoke.js';
import { createSigner } from './signer.js';
import { token } from './token.js';

type Env = Record<string, string | undefined>;

/** Each endpoint's method, whether a browser-based client calls it (CORS), and whether a person sees its answer. */
const ROUTES: Record<Endpoint, { method: 'GET' | 'POST'; cors: boolean; page: boolean }> = {
  metadata: { method: 'GET', cors: true, page: false },
  jwks: { method: 'GET', cors: true, page: false },
  authorize: { method: 'GET', cors: false, page: true },
  consent: { method: 'POST', cors: false, page: true },
  callback: { method: 'GET', cors: false, page: true },
  token: { method: 'POST', cors: true, page: false },
  register: { method: 'POST', cors: true, page: false },
  revoke: { method: 'POST', cors: true, page: false },
};

const BY_PATH = new Map(Object.entries(ENDPOINTS).map(([name, path]) => [path as string, name as Endpoint]));
const STORE_RETRY_AFTER_S = '2';

/** The endpoint a request reached: its path, or, where the platform hands the rewrite's destination, `?endpoint=`. */
function endpointOf(request: Request): Endpoint | undefined {
  const url = new URL(request.url);
  const byPath = BY_PATH.get(url.pathname);
  if (byPath) return byPath;
  const named = url.searchParams.get('endpoint');
  return named !== null && Object.hasOwn(ENDPOINTS, named) ? named as Endpoint : undefined;
}

export function createAuthorizationServerHandler(env: Env = process.env): FetchHandler {
  const config = readAuthServerConfig(env);
  const served = readConfig(env);
  const { checkHost } = createOriginCheck(originPolicyOf(served));
  if (!config) {
    return async (request) => checkHost(request) ?? notPublished('This deployment has no built-in authorization server (AUTH_SERVER_KEY is not set).');
  }
  const authConfig = readAuthConfig(env)!;
  requireAudienceSource(authConfig, served, env);
  const upstash = readUpstashConfig(env);
  const limits = createLimitsFromEnv(env, upstash);
  const ctx: ServerContext = {
    config,
    keyring: createServerKeyring(config.keys.accepted),
    store: selectStore(upstash, env).store,
    signIn: createSignIn(config.provider, config.allow),
    sign: createSigner(config.keys.signing),
    verify: createVerifier(authConfig),
    ...(config.enterprise ? { enterprise: createAssertionChecker(config.enterprise) } : {}),
    log: {
      refused: createCountedWarning((who, n) => `authorization server: refused ${n} sign-in(s) of people not on AUTH_SERVER_ALLOW (last: ${who})`),
      bound: createCountedWarning((what, n) => `authorization server: bound ${n} AUTH_SERVER_ALLOW name(s) to GitHub's ids (last: ${what})`),
      provider: createCountedWarning((why, n) => `authorization server: ${n} sign-in(s) failed at the provider (last: ${why})`),
      reuse: createCountedWarning((what, n) => `authorization server: ${n} replay(s) refused (last: ${what})`),
      store: createCountedWarning((why, n) => `authorization server: the store refused ${n} request(s) (last: ${why})`),
      bounds: createCountedWarning((why, n) => `authorization server: refused ${n} request(s) at a bound (last: ${why})`),
      enterprise: createCountedWarning((why, n) => `authorization server: refused ${n} enterprise grant(s) (last: ${why})`),
    },
  };

  async function route(endpoint: Endpoint, request: Request, reached: Reached): Promise<Response> {
    switch (endpoint) {
      case 'metadata': return serveDocument(request, authorizationServerMetadata(reached.origin, config!.scopes, config!.enterprise), 'application/json', 300);
      // Every accepted key: a rotation's next key before it signs, the old one until what it signed has expired.
      case 'jwks': return serveDocument(request, { keys: config!.keys.accepted.map((key) => key.publicJwk) }, 'application/json', 300);
      case 'authorize': return authorize(request, ctx, reached);
      case 'consent': return consent(request, ctx, reached);
      case 'callback': return callback(request, ctx, reached);
      case 'token': return token(request, ctx, reached);
      case 'register': return register(request, ctx);
      case 'revoke': return revoke(request, ctx, reached);
    }
  }

  return async function handleAuthorizationServer(request) {
    const refused = checkHost(request);
    if (refused) return refused;
    const endpoint = endpointOf(request);
    if (!endpoint) return notPublished('No such endpoint of the authorization server.');
    const { method, cors, page } = ROUTES[endpoint];
    if (request.method === 'OPTIONS' && cors) return new Response(null, { status: 204, headers: OPEN_CORS });
    const documents = endpoint === 'metadata' || endpoint === 'jwks';
    if (request.method !== method && !(documents && request.method === 'HEAD')) {
      return new Response(null, { status: 405, headers: { allow: documents ? 'GET, HEAD, OPTIONS' : `${method}${cors ? ', OPTIONS' : ''}`, ...(cors ? OPEN_CORS : {}) } });
    }
    if (!documents) {
      const overLimit = limits?.byIp && (await limits.byIp(request));
      if (overLimit) return overLimit;
    }
    const origin = publicOrigin(request, env);
    try {
      return await route(endpoint, request, { origin, secure: origin.startsWith('https:') });
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) {
        console.error('[agent-mcp] authorization server: unexpected failure:', error);
        return page ? errorPage(500, 'Something went wrong on this server.') : oauthError(500, 'server_error', 'Something went wrong on this server.');
      }
      ctx.log.store.note(error.message);
      const sentence = storeFailureSentence(error);
      return page ? errorPage(503, sentence) : oauthError(503, 'temporarily_unavailable', sentence, { [H_RETRY_AFTER]: STORE_RETRY_AFTER_S });
    }
  };
}
