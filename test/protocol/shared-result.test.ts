/** A reply carrying a shared result is written byte for byte as JSON.stringify writes it, its result frozen. */

import { expect, test } from 'vitest';
import { errorMessage, resultMessage } from '../../lib/protocol/jsonrpc.js';
import { shareResult, stringifyMessage } from '../../lib/protocol/shared-result.js';

const shared = shareResult({ tools: [{ name: 'a', description: 'quote " and \u2028 and é' }], ttlMs: 5 });

test.each([1, 0, 'id "with" \\ quotes', '\u2028'])('a single reply with id %j', (id) => {
  const reply = resultMessage(id, shared);
  expect(stringifyMessage(reply)).toBe(JSON.stringify(reply));
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
