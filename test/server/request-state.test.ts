import { describe, expect, test } from 'vitest';
import { canonicalJson, createStateSigner } from '../../lib/server/request-state.js';

const binding = { principal: 'alice', method: 'tools/call', params: { name: 'ask', arguments: { q: 1 } } };

describe('MRTR requestState is signed and bound to the request', () => {
  const signer = createStateSigner('s'.repeat(32));

  test('an intact state verifies and returns the application state', async () => {
    const token = await signer.sign(binding, { step: 2 });
    expect(await signer.verify(binding, token)).toEqual({ state: { step: 2 } });
  });

  test('the retry may change _meta, inputResponses and requestState without breaking the binding', async () => {
    const token = await signer.sign(binding, 'x');
    const retry = { ...binding, params: { ...binding.params, _meta: { a: 1 }, inputResponses: { k: {} }, requestState: token } };
    expect(await signer.verify(retry, token)).toEqual({ state: 'x' });
  });

  test.each([
    ['another principal', { ...binding, principal: 'mallory' }],
    ['another method', { ...binding, method: 'prompts/get' }],
    ['other arguments', { ...binding, params: { name: 'ask', arguments: { q: 2 } } }],
  ])('a state presented by %s is refused', async (_name, other) => {
    const token = await signer.sign(binding, 1);
    expect(await signer.verify(other, token)).toBeUndefined();
  });

  test('a tampered payload or signature is refused', async () => {
    const token = await signer.sign(binding, { admin: false });
    const [body, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), s: { admin: true } }))
      .toString('base64url');
    expect(await signer.verify(binding, `${forged}.${mac}`)).toBeUndefined();
    expect(await signer.verify(binding, `${body}.${mac!.slice(0, -2)}AA`)).toBeUndefined();
    expect(await signer.verify(binding, 'garbage')).toBeUndefined();
    expect(await signer.verify(binding, 42)).toBeUndefined();
  });

  test('a state signed with another secret is refused', async () => {
    const token = await createStateSigner('o'.repeat(32)).sign(binding, 1);
    expect(await signer.verify(binding, token)).toBeUndefined();
  });

  test('without a secret, a random key of this process signs: its own tokens verify, no other signer accepts them', async () => {
    const ephemeral = createStateSigner(undefined);
    const token = await ephemeral.sign(binding, { step: 1 });
    expect(await ephemeral.verify(binding, token)).toEqual({ state: { step: 1 } });
    expect(await createStateSigner(undefined).verify(binding, token)).toBeUndefined();
    expect(await signer.verify(binding, token)).toBeUndefined();
  });

  test('an expired state is refused', async () => {
    let now = 1_000_000;
    const clocked = createStateSigner('s'.repeat(32), () => now);
    const token = await clocked.sign(binding, 1);
    now += 10 * 60_000 + 1;
    expect(await clocked.verify(binding, token)).toBeUndefined();
  });
});

test('canonical JSON sorts keys so equal params digest equally', () => {
  expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
});
