/**
 * Every MCP reply says which protocol version it speaks in `MCP-Protocol-Version`, as the request side does
 * (2025-06-18 transports §Protocol Version Header names only the request; clients and proxies that read it on
 * replies, as the widely copied seed tutorial advises, see the version the server answered in). A legacy
 * `initialize` speaks the version it negotiates; any other legacy request the version it was sent with; the
 * modern wire its one version. A refusal carries it only when the request's version is one we serve.
 */

import { H_PROTOCOL_VERSION } from '../protocol/headers.js';
import { isObject, isRequest } from '../protocol/jsonrpc.js';
import { negotiateLegacyVersion } from '../protocol/revisions.js';

/** The header for `version`, or none when no version is known. */
export function protocolVersionHeader(version: string | undefined): Record<string, string> | undefined {
  return version === undefined ? undefined : { [H_PROTOCOL_VERSION]: version };
}

/** Sets the header on `response` (a reply we built, whose headers are mutable) and returns it. */
export function withProtocolVersion(response: Response, version: string): Response {
  response.headers.set(H_PROTOCOL_VERSION, version);
  return response;
}

/** The version a legacy reply to `message` speaks, sent with `requested` (the header, or the assumed default). */
export function legacyReplyVersion(message: unknown, requested: string): string {
  if (isRequest(message) && message.method === 'initialize') {
    return negotiateLegacyVersion(isObject(message.params) ? message.params.protocolVersion : undefined);
  }
  return requested;
}
