/**
 * GET /usage (HTML) and /usage.json (the UsageView), `?window=hour|day|month` (docs/observability.md "The usage
 * page"). The access check comes before anything is read from the store: a caller without the right gets the 401
 * challenge of the sign-in modes on, or a 403 insufficient_scope challenge naming `usage:read`, and no number; with
 * no sign-in mode on, a deployment answers 404. A page view reads the store once (lib/usage/read.ts).
 */

import ipaddr from 'ipaddr.js';
import type { BearerAuth } from '../../auth/index.js';
import { createOriginCheck, type OriginPolicy } from '../../http/origin.js';
import { errorReply, refuse } from '../../http/replies.js';
import { INSUFFICIENT_SCOPE, INTERNAL_ERROR } from '../../protocol/errors.js';
import { H_RETRY_AFTER } from '../../protocol/headers.js';
import { StoreUnavailableError, type Store } from '../../store/types.js';
import { readUsage } from '../read.js';
import type { UsageView, UsageWindow } from '../view.js';
import { mayReadUsage, USAGE_SCOPE, type UsageAdmins } from './access.js';
import { renderUsagePage, USAGE_CSP, USAGE_WINDOWS } from './render.js';

export type FetchHandler = (request: Request) => Promise<Response>;

export interface UsagePageOptions {
  store: Store;
  /** The sign-in modes on; none: no caller can be an admin. */
  auth?: BearerAuth;
  admins: UsageAdmins;
  origin: OriginPolicy;
  /**
   * `npm start` only: a request whose socket address is loopback, on a server that is not a deployment (no
   * PUBLIC_URL, not on Vercel), sees the page without sign-in.
   */
  openOnLoopback?: boolean;
}

export const DEFAULT_USAGE_WINDOW: UsageWindow = 'day';
const JSON_VIEW = 'json';
const COMMON = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', vary: 'authorization', 'referrer-policy': 'no-referrer' };
const HTML_HEADERS = { ...COMMON, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': USAGE_CSP, 'x-frame-options': 'DENY' };
const JSON_HEADERS = { ...COMMON, 'content-type': 'application/json' };
const DENIED = 'The usage page is for the operator: it needs an API key with the scope usage:read, or a principal the operator named.';
const STORE_RETRY_AFTER_S = 2;

/** True for a socket address on the loopback interface (127.0.0.0/8, ::1, and 127.x mapped into IPv6). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}

/** The window a request asks for, or undefined when it names none of them. */
function windowOf(url: URL): UsageWindow | undefined {
  const asked = url.searchParams.get('window');
  if (asked === null || asked === '') return DEFAULT_USAGE_WINDOW;
  return (USAGE_WINDOWS as readonly string[]).includes(asked) ? (asked as UsageWindow) : undefined;
}

/** A Vercel rewrite says `?view=json`; the local server keeps the path. */
const wantsJson = (url: URL) => url.searchParams.get('view') === JSON_VIEW || url.pathname.endsWith('.json');

export function createUsageHandler(options: UsagePageOptions): FetchHandler {
  const { store, auth, admins, origin } = options;
  const { checkOrigin } = createOriginCheck(origin);
  const openHere = Boolean(options.openOnLoopback && origin.local);
  const notes = store.shared ? [] : origin.local
    ? ['The store is this process\'s memory: the numbers are the calls this server answered since it started.']
    : ['The store is this instance\'s memory: the numbers are its own calls only (set UPSTASH_REDIS_REST_URL to see every instance\'s).'];

  /** undefined when the request may see the page, else the reply that refuses it. */
  async function refusal(request: Request): Promise<Response | undefined> {
    if (openHere && isLoopbackAddress((request as Request & { ip?: string }).ip)) return undefined;
    if (!auth) return refuse(404, 'Not Found.');
    const principal = await auth.authenticate(request);
    if (principal instanceof Response) return principal;
    if (mayReadUsage(principal, admins)) return undefined;
    // The step-up challenge of a missing scope, as the MCP endpoint words it (lib/auth/index.ts errorHeaders).
    const headers = auth.errorHeaders(request, { code: INSUFFICIENT_SCOPE, data: { requiredScopes: [USAGE_SCOPE], grantedScopes: principal.scopes } });
    return refuse(403, DENIED, headers);
  }

  return async function handleUsage(request) {
    if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(405, 'Method not allowed: the usage page answers GET.', { allow: 'GET, HEAD' });
    const forbidden = checkOrigin(request);
    if (forbidden) return forbidden;
    const refused = await refusal(request);
    if (refused) return refused;
    const url = new URL(request.url);
    const window = windowOf(url);
    if (!window) return refuse(400, `Bad Request: window must be ${USAGE_WINDOWS.join(', ')}.`);
    let view: UsageView;
    try {
      view = await readUsage(store, window);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) {
        console.error('[agent-mcp] usage page: unexpected failure:', error);
        return errorReply(500, { code: INTERNAL_ERROR, message: 'Internal error.' });
      }
      console.error(`[agent-mcp] usage page: ${error.message}`, error.cause);
      return errorReply(503, { code: INTERNAL_ERROR, message: 'The shared store is unavailable; try again shortly.' }, null, { [H_RETRY_AFTER]: String(STORE_RETRY_AFTER_S) });
    }
    const json = wantsJson(url);
    const body = request.method === 'HEAD' ? null : json ? JSON.stringify(view) : renderUsagePage(view, openHere ? [...notes, OPEN_NOTE] : notes);
    return new Response(body, { status: 200, headers: json ? JSON_HEADERS : HTML_HEADERS });
  };
}

const OPEN_NOTE = 'Open without sign-in: npm start serves this page to loopback on this machine only.';
