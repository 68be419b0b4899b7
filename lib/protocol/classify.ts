/**
 * Decides which era a parsed POST body belongs to, once, at the edge; never throws.
 *
 * Body-primary (as the SDK v2 classifier): a request whose `params._meta` holds
 * `io.modelcontextprotocol/protocolVersion` claims the modern (2026-07-28) envelope; anything else is
 * legacy traffic, including legacy calls that carry other `_meta` such as a `progressToken`.
 * The `MCP-Protocol-Version` header never picks the era by itself: a modern header without a body claim
 * is a malformed modern request (-32602), and a modern claim must agree with its headers (-32020).
 */

import { decodeHeaderValue, H_METHOD, H_NAME, H_PROTOCOL_VERSION, NAME_FIELD_BY_METHOD } from './headers.js';
import {
  HEADER_MISMATCH, INVALID_PARAMS, INVALID_REQUEST, MODERN_ERROR_STATUS, UNSUPPORTED_PROTOCOL_VERSION,
  rpcError, type WireError,
} from './errors.js';
import {
  isNotification, isObject, isRequest, ownValue, readId,
  type JsonRpcNotification, type JsonRpcRequest, type RequestId,
} from './jsonrpc.js';
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION } from './meta.js';
import {
  ASSUMED_LEGACY_VERSION, MODERN_VERSION, allowsBatch, isLegacyVersion, isModernVersion,
} from './revisions.js';

export interface HeaderSource {
  get(name: string): string | null;
}

/** What the client said about itself in a modern request's `_meta`. */
export interface ModernMeta {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: Record<string, unknown>;
  logLevel?: string;
}

export type Classified =
  | { kind: 'legacy'; version: string; batch: boolean; messages: unknown[] }
  | { kind: 'modern'; message: JsonRpcRequest | JsonRpcNotification; meta: ModernMeta }
  /** `version`: the served version the refused request was sent in, when it was one (its reply says so). */
  | { kind: 'reject'; id: RequestId | null; error: WireError & { status: number }; version?: string };

type Reject = Extract<Classified, { kind: 'reject' }>;

function reject(id: RequestId | null, code: number, message: string, data?: unknown): Reject {
  const status = MODERN_ERROR_STATUS[code] ?? 400;
  return { kind: 'reject', id, error: { ...rpcError(code, message, data), status } };
}

function rejectIn(version: string, id: RequestId | null, code: number, message: string): Reject {
  return { ...reject(id, code, message), version };
}

function modernClaim(body: unknown): unknown {
  if (!isObject(body) || !isObject(body.params) || !isObject(body.params._meta)) return undefined;
  return body.params._meta[META_PROTOCOL_VERSION];
}

function hasModernClaim(body: unknown): boolean {
  return modernClaim(body) !== undefined;
}

/** Classifies one parsed POST body with the request's headers. */
export function classifyBody(body: unknown, headers: HeaderSource): Classified {
  if (Array.isArray(body)) return classifyBatch(body, headers);
  if (!isObject(body)) return reject(null, INVALID_REQUEST, 'The body must be a JSON-RPC message object.');
  if (hasModernClaim(body)) return classifyModern(body, headers);

  const headerVersion = headers.get(H_PROTOCOL_VERSION);
  if (headerVersion !== null && isModernVersion(headerVersion.trim())) {
    return reject(readId(body), INVALID_PARAMS,
      `MCP-Protocol-Version ${MODERN_VERSION} requires params._meta["${META_PROTOCOL_VERSION}"].`);
  }
  return classifyLegacy([body], false, headerVersion);
}

function classifyBatch(body: unknown[], headers: HeaderSource): Classified {
  if (body.length === 0) return reject(null, INVALID_REQUEST, 'An empty batch is not a valid JSON-RPC request.');
  if (body.some(hasModernClaim)) {
    return reject(null, INVALID_REQUEST, `Protocol version ${MODERN_VERSION} does not allow JSON-RPC batches.`);
  }
  return classifyLegacy(body, true, headers.get(H_PROTOCOL_VERSION));
}

function classifyLegacy(messages: unknown[], batch: boolean, headerVersion: string | null): Classified {
  const version = headerVersion === null ? ASSUMED_LEGACY_VERSION : headerVersion.trim();
  const id = batch ? null : readId(messages[0]);
  if (!isLegacyVersion(version)) {
    return reject(id, INVALID_REQUEST, `Unsupported MCP-Protocol-Version: ${version}.`);
  }
  if (batch && !allowsBatch(version)) {
    return rejectIn(version, null, INVALID_REQUEST, `Protocol version ${version} does not allow JSON-RPC batches.`);
  }
  return { kind: 'legacy', version, batch, messages };
}

function classifyModern(body: Record<string, unknown>, headers: HeaderSource): Classified {
  const id = readId(body);
  if (!isRequest(body) && !isNotification(body)) {
    return reject(id, INVALID_REQUEST, 'The body is not a valid JSON-RPC request.');
  }
  const meta = (body.params as { _meta: Record<string, unknown> })._meta;
  const claimed = meta[META_PROTOCOL_VERSION];
  if (typeof claimed !== 'string' || claimed === '') {
    return reject(id, INVALID_PARAMS, `params._meta["${META_PROTOCOL_VERSION}"] must be a version string.`);
  }

  const mismatch = checkHeaders(body, claimed, headers);
  if (mismatch) return isModernVersion(claimed) ? rejectIn(claimed, id, HEADER_MISMATCH, mismatch) : reject(id, HEADER_MISMATCH, mismatch);

  if (!isModernVersion(claimed)) {
    return reject(id, UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version: ${claimed}.`, {
      supported: [MODERN_VERSION],
      requested: claimed,
    });
  }

  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isObject(capabilities)) {
    return rejectIn(claimed, id, INVALID_PARAMS, `params._meta["${META_CLIENT_CAPABILITIES}"] is required.`);
  }
  const clientInfo = meta[META_CLIENT_INFO];
  const logLevel = meta[META_LOG_LEVEL];
  return {
    kind: 'modern',
    message: body,
    meta: {
      protocolVersion: claimed,
      clientCapabilities: capabilities,
      ...(isObject(clientInfo) ? { clientInfo } : {}),
      ...(logLevel !== undefined ? { logLevel: String(logLevel) } : {}),
    },
  };
}

/** Returns why the headers disagree with the body, or undefined when they agree. */
function checkHeaders(body: JsonRpcRequest | JsonRpcNotification, claimed: string, headers: HeaderSource) {
  const version = headers.get(H_PROTOCOL_VERSION);
  if (version === null) return 'The MCP-Protocol-Version header is required.';
  if (version.trim() !== claimed) {
    return `MCP-Protocol-Version header (${version}) does not match params._meta (${claimed}).`;
  }
  const method = headers.get(H_METHOD);
  if (method === null) return 'The Mcp-Method header is required.';
  if (decodeHeaderValue(method.trim()) !== body.method) {
    return `Mcp-Method header does not match the body method ${body.method}.`;
  }
  const nameField = ownValue(NAME_FIELD_BY_METHOD, body.method);
  if (nameField === undefined) return undefined;
  const expected = (body.params as Record<string, unknown>)[nameField];
  const name = headers.get(H_NAME);
  if (name === null) return `The Mcp-Name header is required for ${body.method}.`;
  if (decodeHeaderValue(name.trim()) !== expected) {
    return `Mcp-Name header does not match params.${nameField}.`;
  }
  return undefined;
}
