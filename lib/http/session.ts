/**
 * `Mcp-Session-Id` on the legacy wire (2025-03-26 .. 2025-11-25 transports §Session Management), stateless:
 * the id the server assigns at initialize is a MAC under the deployment's key, bound to the principal, so any
 * instance can verify it and nothing is stored. It is what gives an anonymous client an identity of its own
 * (lib/server/caller.ts). Sessions are never required: a request without the header is served as before, with
 * no cross-request powers. An id the server did not issue, or issued to another principal, gets 404, which tells
 * the client to initialize again (the spec's answer for a session the server does not know).
 */

import { H_SESSION_ID } from '../protocol/headers.js';
import { SESSION_NOT_FOUND } from '../protocol/errors.js';
import { isRequest } from '../protocol/jsonrpc.js';
import type { Principal } from '../server/context.js';
import type { Keyring } from '../server/keyring.js';
import { errorReply } from './replies.js';

const LABEL = 'mcp-session';

export interface Sessions {
  /** A new session id for this principal (anonymous: undefined). */
  issue(principal: Principal | undefined): Promise<string>;
  /** The request's verified session id, undefined without one, or the 404 for an id we did not issue to it. */
  read(request: Request, principal: Principal | undefined): Promise<string | undefined | Response>;
}

export function createSessions(keyring: Keyring): Sessions {
  const bound = (principal: Principal | undefined) => principal?.subject ?? '';
  return {
    issue: (principal) => keyring.issue(LABEL, bound(principal)),
    async read(request, principal) {
      const id = request.headers.get(H_SESSION_ID);
      if (id === null) return undefined;
      if (await keyring.check(LABEL, id.trim(), bound(principal))) return id.trim();
      return errorReply(404, { code: SESSION_NOT_FOUND, message: 'Session not found: initialize again without Mcp-Session-Id.' });
    },
  };
}

/** True for the request that may be given a session: a single legacy `initialize`. */
export function startsSession(message: unknown): boolean {
  return isRequest(message) && message.method === 'initialize';
}
