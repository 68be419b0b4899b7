/**
 * Store keys of per-caller state (lib/server/caller.ts): whatever a client sends, a key stays short (issue 26
 * item 3), and no two part lists give the same key. The payment id bound (lib/pay/replay.ts) is here too, as
 * the other place a client's string reaches a key.
 */

import { describe, expect, test } from 'vitest';
import { handlerContext } from '../../lib/define/context.js';
import { paymentIdOf } from '../../lib/pay/replay.js';
import type { AnyPaymentPayload } from '../../lib/pay/payload.js';
import { Caller, keyOf, MAX_KEY_PART_CHARS, storeKeys } from '../../lib/server/caller.js';
import { createRequestContext } from '../../lib/server/context.js';
import { createKeyring } from '../../lib/server/keyring.js';
import { MemoryStore } from '../../lib/store/memory.js';

const caller = new Caller(undefined, 'nonce.mac').key!;
const THREE_MB = 'i'.repeat(3_000_000);

describe('a client-chosen string never makes a store key long', () => {
  test('a 3 MB JSON-RPC id gives cancellation and retry keys of a few hundred characters', () => {
    expect(storeKeys.cancel(caller, THREE_MB).length).toBeLessThan(200);
    expect(storeKeys.retry(caller, THREE_MB, 'f'.repeat(64)).length).toBeLessThan(300);
  });

  test('a long part is keyed by its SHA-256: the same id gives the same key, another id another key', () => {
    expect(storeKeys.cancel(caller, THREE_MB)).toBe(storeKeys.cancel(caller, 'i'.repeat(3_000_000)));
    expect(storeKeys.cancel(caller, THREE_MB)).not.toBe(storeKeys.cancel(caller, `${THREE_MB}j`));
    expect(keyOf('own', 'x'.repeat(MAX_KEY_PART_CHARS + 1))).toMatch(/^own:\[\{"sha256":"[0-9a-f]{64}"\}\]$/);
  });

  test('parts up to MAX_KEY_PART_CHARS are kept as they are, and no such part equals a digest', () => {
    const part = 'x'.repeat(MAX_KEY_PART_CHARS);
    expect(keyOf('own', part)).toBe(`own:${JSON.stringify([part])}`);
    const digested = keyOf('own', 'y'.repeat(MAX_KEY_PART_CHARS + 1));
    const lookalike = JSON.parse(digested.slice('own:'.length))[0];
    expect(keyOf('own', JSON.stringify(lookalike))).not.toBe(digested);
  });

  test('keys are the prefix and the JSON of the parts, as stored by earlier releases', () => {
    const parts = ['["x",null]', '', 'demo', 'a "quoted" \\ part', 'lone \uD800 surrogate', 'é\u{1F600}'];
    expect(keyOf('conv', ...parts)).toBe(`conv:${JSON.stringify(parts)}`);
    expect(keyOf('tasks')).toBe('tasks:[]');
  });

  test('a deployment\'s stateKey with a client\'s long string stays short', () => {
    const call = { era: 'legacy' as const, protocolVersion: '2025-11-25', clientCapabilities: {}, store: new MemoryStore(), caller: new Caller(undefined, 'nonce.mac') };
    const ctx = handlerContext(createRequestContext(call, 1, 'tools/call', {}, { keyring: createKeyring(undefined) }));
    expect(ctx.stateKey('notes', THREE_MB)!.length).toBeLessThan(200);
  });

  test('a payment whose payer and nonce are megabytes long gets an id of a digest', async () => {
    const payload = { x402Version: 2, accepted: { network: 'eip155:84532' }, payload: { authorization: { from: THREE_MB, nonce: '0x1' } } } as unknown as AnyPaymentPayload;
    expect(await paymentIdOf(payload)).toMatch(/^digest:[0-9a-f]{64}$/);
    const usual = { ...payload, payload: { authorization: { from: '0xABC', nonce: '0x1' } } } as unknown as AnyPaymentPayload;
    expect(await paymentIdOf(usual)).toMatch(/^[^:]+:[^:]+:0xabc:0x1$/);
  });
});

describe('whose share of the store a request writes to', () => {
  test('a principal\'s own, whatever session or address it comes with; else the session\'s; else the address\'s; each in its class', () => {
    const alice = { subject: 'alice' };
    const address = '192.0.2.1';
    expect(new Caller(alice, 's1', address).storeBudget).toEqual(new Caller(alice, 's2').storeBudget);
    expect(new Caller(alice).storeBudget).toEqual({ owner: JSON.stringify(['alice']), class: 'principal' });
    expect(new Caller(undefined, 'nonce.mac', address).storeBudget).toEqual({ owner: caller, class: 'session' });
    expect(new Caller(undefined, undefined, address).storeBudget).toEqual({ owner: '["ip","192.0.2.1"]', class: 'anonymous' });
  });

  test('a caller with neither an identity nor an address (in process) writes to the pool of its class', () => {
    expect(new Caller().storeBudget).toBe('anonymous');
  });
});
