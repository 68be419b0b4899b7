/**
 * JSON-RPC error codes MCP uses, the error value every layer returns, and the HTTP status of each
 * error that is decided before a method runs. (2026-07-28 basic/index §Error Codes; schema.ts.)
 */

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** Implementation-defined range; the SDKs use it for transport-level refusals (406, 415, 405, 413). */
export const TRANSPORT_ERROR = -32000;
/** Legacy wire only; 2026-07-28 servers report a missing resource with -32602 instead (SEP-2164). */
export const RESOURCE_NOT_FOUND_LEGACY = -32002;
/** Legacy wire: an `Mcp-Session-Id` the server did not issue (sent with HTTP 404), the code the SDKs use. */
export const SESSION_NOT_FOUND = -32001;
export const HEADER_MISMATCH = -32020;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** The user must visit a URL before the call can go on (2025-11-25 client/elicitation, URL mode); a mount may answer it. */
export const URL_ELICITATION_REQUIRED = -32042;
/**
 * Over a rate limit (sent with HTTP 429). New codes go outside the JSON-RPC reserved range -32768..-32000
 * (2026-07-28 basic/index §Error Codes: -32000..-32019 closed to new codes, -32020..-32099 the spec's), so it
 * mirrors the HTTP status; plain JSON-RPC 2.0 leaves that range to applications on the legacy wire too.
 */
export const RATE_LIMITED = 429;
export const RATE_LIMITED_MESSAGE = 'Rate limit exceeded';
/**
 * A call over a per-tool limit (RATE_LIMIT_TOOLS) is a tool result with `isError`, not an error: the key of its
 * `_meta` that says in how many seconds to try again. (`_meta`, not `structuredContent`: v1 SDK clients check
 * `structuredContent` against the tool's output schema even on an error result.)
 */
export const RETRY_AFTER_META = 'retryAfterSeconds';
/**
 * The principal lacks a scope the call needs (sent with HTTP 403 and an insufficient_scope challenge);
 * like RATE_LIMITED it mirrors the HTTP status, outside the reserved JSON-RPC range.
 */
export const INSUFFICIENT_SCOPE = 403;
/**
 * A paid resources/read or prompts/get without a payment, for a client that did not declare x402's `org.x402/payment`
 * extension (x402 `specs/transports-v2/mcp.md` binds only tools/call otherwise): the PaymentRequired in `data`. The
 * code is @x402/mcp's (`MCP_PAYMENT_REQUIRED_CODE`), which its client reads; it rides on HTTP 200 like any method error.
 */
export const PAYMENT_REQUIRED = 402;

/** A JSON-RPC error object as it goes on the wire. */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** An error value; `status` is set when the error decides the HTTP status of the whole reply. */
export interface WireError extends RpcError {
  status?: number;
}

export function rpcError(code: number, message: string, data?: unknown): RpcError {
  return data === undefined ? { code, message } : { code, message, data };
}

/** Thrown by method handlers to answer with a JSON-RPC error; anything else thrown becomes -32603. */
export class McpError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'McpError';
    this.code = code;
    this.data = data;
  }
  toJSON(): RpcError {
    return rpcError(this.code, this.message, this.data);
  }
}

/**
 * HTTP status of a modern-wire error answered as the single reply to a request
 * (2026-07-28 transports/streamable-http: header mismatch, version, capability and `_meta` errors are 400,
 * an unknown method is 404). Errors from inside a method (bad tool name, bad cursor) stay in-band on 200.
 */
export const MODERN_ERROR_STATUS: Readonly<Record<number, number>> = {
  [PARSE_ERROR]: 400,
  [INVALID_REQUEST]: 400,
  [METHOD_NOT_FOUND]: 404,
  [HEADER_MISMATCH]: 400,
  [MISSING_REQUIRED_CLIENT_CAPABILITY]: 400,
  [UNSUPPORTED_PROTOCOL_VERSION]: 400,
  [INSUFFICIENT_SCOPE]: 403,
};

/** Legacy wire: only malformed messages change the status; method errors ride on 200 as the SDKs do. */
export const LEGACY_ERROR_STATUS: Readonly<Record<number, number>> = {
  [PARSE_ERROR]: 400,
  [INVALID_REQUEST]: 400,
  [INSUFFICIENT_SCOPE]: 403,
};

/** The HTTP status of a single JSON reply carrying this error code. */
export function httpStatusFor(era: 'legacy' | 'modern', code: number): number {
  const table = era === 'modern' ? MODERN_ERROR_STATUS : LEGACY_ERROR_STATUS;
  return Object.hasOwn(table, code) ? table[code]! : 200;
}
