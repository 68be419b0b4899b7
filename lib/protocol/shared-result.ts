/**
 * A result served unchanged to many requests (a list reply, lib/server/list-cache.ts) is frozen and serialized
 * once: a reply that carries it writes the text kept here instead of walking the object again. Serializing a
 * tools/list result was the largest single cost of a warm list request of ours (docs/performance.md). A reply
 * body carries it encoded once too: a Response encodes a string body anew on every request, and for a list
 * with any character past Latin-1 in it the flattened text and its UTF-8 cost more than the rest of the reply.
 */

import type { JsonRpcResponse } from './jsonrpc.js';

const texts = new WeakMap<object, string>();
/** `,"result":<text>}` as UTF-8, made the first time a reply body carries the result. */
const tails = new WeakMap<object, Uint8Array>();
const encoder = new TextEncoder();

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
  return `${headOf(message)},"result":${text}}`;
}

/** A reply's text up to its result: what differs between replies carrying the same shared result. */
const headOf = (message: JsonRpcResponse) => `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)}`;

/**
 * The bytes (or text) of an HTTP body holding `message`, equal to the UTF-8 of `JSON.stringify(message)`: a single
 * reply carrying a shared result is its id's few bytes before the result's kept ones, anything else its text.
 */
export function messageBody(message: JsonRpcResponse | JsonRpcResponse[]): string | Uint8Array<ArrayBuffer> {
  if (Array.isArray(message) || !('result' in message)) return stringifyMessage(message);
  const text = texts.get(message.result);
  if (text === undefined) return JSON.stringify(message);
  let tail = tails.get(message.result);
  if (!tail) tails.set(message.result, (tail = encoder.encode(`,"result":${text}}`)));
  const head = headOf(message);
  // Node's Buffer: uninitialized and, under 4 KB, cut from a shared pool; a Response copies what it is given.
  const size = Buffer.byteLength(head);
  const body = Buffer.allocUnsafe(size + tail.length);
  body.write(head);
  body.set(tail, size);
  return body;
}
