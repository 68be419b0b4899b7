/** JSON-RPC 2.0 message shapes and guards (the base protocol of every MCP revision). */

export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcResult {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string; data?: unknown };
}

export type JsonRpcResponse = JsonRpcResult | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `table[key]` when `key` is the table's own entry; undefined otherwise. Every table indexed by a client's string
 * goes through this, so `toString`, `constructor` or `__proto__` never find an inherited member.
 */
export function ownValue<T>(table: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** MCP forbids null ids on requests (basic/index §Requests). */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function hasValidParams(message: Record<string, unknown>): boolean {
  return message.params === undefined || isObject(message.params);
}

export function isRequest(value: unknown): value is JsonRpcRequest {
  return (
    isObject(value) && value.jsonrpc === '2.0' && typeof value.method === 'string' &&
    isRequestId(value.id) && hasValidParams(value)
  );
}

export function isNotification(value: unknown): value is JsonRpcNotification {
  return (
    isObject(value) && value.jsonrpc === '2.0' && typeof value.method === 'string' &&
    !('id' in value) && hasValidParams(value)
  );
}

export function isResponse(value: unknown): value is JsonRpcResponse {
  return (
    isObject(value) && value.jsonrpc === '2.0' && !('method' in value) && 'id' in value &&
    ('result' in value || 'error' in value)
  );
}

/** The id of anything that looks like a request, so errors about it can still carry it. */
export function readId(value: unknown): RequestId | null {
  return isObject(value) && isRequestId(value.id) ? value.id : null;
}

export function resultMessage(id: RequestId, result: Record<string, unknown>): JsonRpcResult {
  return { jsonrpc: '2.0', id, result };
}

export function errorMessage(
  id: RequestId | null,
  error: { code: number; message: string; data?: unknown },
): JsonRpcErrorResponse {
  const { code, message, data } = error;
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

export function notificationMessage(method: string, params?: Record<string, unknown>): JsonRpcNotification {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

export { isObject };
