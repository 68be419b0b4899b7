/**
 * A result served unchanged to many requests (a list reply, lib/server/list-cache.ts) is frozen and serialized
 * once: a reply that carries it writes the text kept here instead of walking the object again. Serializing a
 * tools/list result was the largest single cost of a warm list request of ours (docs/performance.md).
 */

import type { JsonRpcResponse } from './jsonrpc.js';

const texts = new WeakMap<object, string>();

/** Freezes `result` (and the arrays it holds) and keeps its JSON text; it must not change from now on. */
export function shareResult<T extends Record<string, unknown>>(result: T): T {
  for (const value of Object.values(result)) if (Array.isArray(value)) Object.freeze(value);
  texts.set(Object.freeze(result), JSON.stringify(result));
  return result;
}

/** True for a result made by shareResult: whatever is derived from it may be kept beside it. */
export function isSharedResult(result: object): boolean {
  return texts.has(result);
}

/** `JSON.stringify(message)`, with a shared result's text written as kept. */
export function stringifyMessage(message: JsonRpcResponse | JsonRpcResponse[]): string {
  if (Array.isArray(message)) return `[${message.map(stringifyMessage).join(',')}]`;
  const text = 'result' in message ? texts.get(message.result) : undefined;
  if (text === undefined) return JSON.stringify(message);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${text}}`;
}
