import { describe, expect, test } from 'vitest';
import { canonicalJson, createStateSigner } from '../../lib/server/request-state.js';

const binding = { principal: 'alice', method: 'tools/call', params: { name: 'ask', arguments: { q: 1 } } };

describe('MRTR requestState is sealed and bound to the request', () => {
  const signer = createStateSigner('s'.repeat(32));

  test('an intact state opens and returns the application state and when it expires', async () => {
    const before = Date.now();
    const token = await signer.sign(binding, { step: 2 });
    const opened = await signer.verify(binding, token);
    expect(opened).toEqual({ state: { step: 2 }, expiresAt: expect.any(Number) });
    expect(opened!.expiresAt - before).toBeGreaterThanOrEqual(10 * 60_000);
  });

  test('nothing in it can be read: the state, the principal and the method are not in the token', async () => {
    const token = await signer.sign(binding, { conversation: 'conv-secret-id', answer: 'grace' });
    const bytes = token.split('.').map((part) => Buffer.from(part, 'base64url').toString('latin1')).join('');
    for (const secret of ['conv-secret-id', 'grace', 'alice', 'tools/call']) expect(bytes).not.toContain(secret);
    // Sealed anew each time (a fresh nonce): the same state gives another token.
    expect(await signer.sign(binding, { conversation: 'conv-secret-id', answer: 'grace' })).not.toBe(token);
  });

  test('the retry may change _meta, inputResponses and requestState without breaking the binding', async () => {
    const token = await signer.sign(binding, 'x');
    const retry = { ...binding, params: { ...binding.params, _meta: { a: 1 }, inputResponses: { k: {} }, requestState: token } };
    expect((await signer.verify(retry, token))?.state).toBe('x');
  });

  test.each([
    ['another principal', { ...binding, principal: 'mallory' }],
    ['another method', { ...binding, method: 'prompts/get' }],
    ['other arguments', { ...binding, params: { name: 'ask', arguments: { q: 2 } } }],
  ])('a state presented by %s is refused', async (_name, other) => {
    const token = await signer.sign(binding, 1);
    expect(await signer.verify(other, token)).toBeUndefined();
  });

  test('a token with any byte changed, cut short or malformed is refused', async () => {
    const token = await signer.sign(binding, { admin: false });
    const [iv, sealed] = token.split('.') as [string, string];
    const flip = (part: string, at: number) => {
      const bytes = Buffer.from(part, 'base64url');
      bytes[at] = bytes[at]! ^ 1;
      return bytes.toString('base64url');
    };
    expect(await signer.verify(binding, `${flip(iv, 0)}.${sealed}`)).toBeUndefined();
    expect(await signer.verify(binding, `${iv}.${flip(sealed, 3)}`)).toBeUndefined();
    expect(await signer.verify(binding, `${iv}.${sealed.slice(0, -4)}`)).toBeUndefined();
    expect(await signer.verify(binding, `${token}.extra`)).toBeUndefined();
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
    expect((await ephemeral.verify(binding, token))?.state).toEqual({ step: 1 });
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
