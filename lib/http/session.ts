/**
 * `Mcp-Session-Id` on the legacy wire (2025-03-26 .. 2025-11-25 transports §Session Management), stateless:
 * the id the server assigns at initialize is a MAC under the deployment's key, bound to the principal, so any
 * instance can verify it and nothing is stored. It is what gives an anonymous client an identity of its own
 * (lib/server/caller.ts). Sessions are never required: a request without the header is served as before, with
 * no cross-request powers. An id the server did not issue, or issued to another principal, gets 404, which tells
 * the client to initialize again (the spec's answer for a session the server does not know).
 * The id also remembers, under the same MAC, which of the client capabilities a server may ask for the client
 * declared at initialize (`<nonce>.<mac>.<code>`, lib/protocol/client-capabilities.ts): the server keeps no
 * state, yet must never ask a client for more than it declared, or hand a mounted server more.
 */

import { CAPABILITY_CODE, decodeCapabilities, encodeCapabilities, type ClientCapabilities } from '../protocol/client-capabilities.js';
import { H_SESSION_ID } from '../protocol/headers.js';
import { SESSION_NOT_FOUND } from '../protocol/errors.js';
import { isRequest, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { Principal } from '../server/context.js';
import type { Keyring } from '../server/keyring.js';
import { principalKey } from '../server/principal-key.js';
import { errorReply } from './replies.js';

const LABEL = 'mcp-session';

export interface Sessions {
  /** A new session id for this principal (anonymous: undefined) and the capabilities its client declared. */
  issue(principal: Principal | undefined, declared?: unknown): Promise<string>;
  /** The request's verified session id, undefined without one, or the 404 for an id we did not issue to it. */
  read(request: Request, principal: Principal | undefined): Promise<string | undefined | Response>;
}

export function createSessions(keyring: Keyring): Sessions {
  const bound = (principal: Principal | undefined) => (principal ? principalKey(principal) : '');
  return {
    async issue(principal, declared) {
      const code = encodeCapabilities(declared);
      // Without capabilities the id is the one earlier versions issued, so their sessions stay valid.
      return code ? `${await keyring.issue(LABEL, bound(principal), code)}.${code}` : keyring.issue(LABEL, bound(principal));
    },
    async read(request, principal) {
      const id = request.headers.get(H_SESSION_ID)?.trim();
      if (id === undefined) return undefined;
      const [nonce, mac, code, extra] = id.split('.');
      const token = `${nonce}.${mac}`;
      const valid = extra === undefined && (code === undefined
        ? await keyring.check(LABEL, token, bound(principal))
        : CAPABILITY_CODE.test(code) && code !== '' && (await keyring.check(LABEL, token, bound(principal), code)));
      if (valid) return id;
      return errorReply(404, { code: SESSION_NOT_FOUND, message: 'Session not found: initialize again without Mcp-Session-Id.' });
    },
  };
}

/** The client capabilities a verified session id says its client declared. */
export function sessionCapabilities(id: string): ClientCapabilities {
  return decodeCapabilities(id.split('.')[2] ?? '');
}

/** True for the request that may be given a session: a single legacy `initialize`. */
export function startsSession(message: unknown): message is JsonRpcRequest {
  return isRequest(message) && message.method === 'initialize';
}
