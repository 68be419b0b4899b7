/** A reply carrying a shared result is written byte for byte as JSON.stringify writes it, its result frozen. */

import { expect, test } from 'vitest';
import { errorMessage, resultMessage } from '../../lib/protocol/jsonrpc.js';
import { messageBody, shareResult, stringifyMessage } from '../../lib/protocol/shared-result.js';

const shared = shareResult({ tools: [{ name: 'a', description: 'quote " and \u2028 and é' }], ttlMs: 5 });

test.each([1, 0, 'id "with" \\ quotes', '\u2028'])('a single reply with id %j', (id) => {
  const reply = resultMessage(id, shared);
  expect(stringifyMessage(reply)).toBe(JSON.stringify(reply));
});

const utf8 = (body: string | Uint8Array) => (typeof body === 'string' ? body : new TextDecoder().decode(body));

test.each([1, 0, 2 ** 53 - 1, -1.5, 'id "with" \\ quotes', '\u2028', 'ünïcödé ☃ 𝄞 id'])('a single reply\'s body with id %j is the UTF-8 of its JSON, kept bytes or not', (id) => {
  for (const reply of [resultMessage(id, shared), resultMessage(id, { unshared: 'é' }), errorMessage(id, { code: -32601, message: 'nope ☃' })]) {
    const body = messageBody(reply);
    expect(utf8(body)).toBe(JSON.stringify(reply));
    if (typeof body !== 'string') expect([...body]).toEqual([...new TextEncoder().encode(JSON.stringify(reply))]);
  }
  // A shared result's body is bytes, made from the kept encoding: another reply does not see this one's id.
  expect(messageBody(resultMessage(id, shared))).toBeInstanceOf(Uint8Array);
  expect(utf8(messageBody(resultMessage('other', shared)))).toBe(JSON.stringify(resultMessage('other', shared)));
});

test('a batch\'s body is its text', () => {
  const batch = [resultMessage(1, shared), errorMessage(null, { code: -32600, message: 'no' })];
  expect(messageBody(batch)).toBe(JSON.stringify(batch));
});

test('a batch of shared, unshared and error replies', () => {
  const batch = [resultMessage(1, shared), resultMessage(2, { other: true }), errorMessage(null, { code: -32600, message: 'no' })];
  expect(stringifyMessage(batch)).toBe(JSON.stringify(batch));
});

test('the shared result and the arrays it holds can no longer change', () => {
  expect(Object.isFrozen(shared)).toBe(true);
  expect(Object.isFrozen(shared.tools)).toBe(true);
  expect(() => (shared.tools as unknown[]).push({})).toThrow(TypeError);
});
