import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { createKeyring } from '../../lib/server/keyring.js';

/** The MAC as the keyring has always made it: the label, then each part as `<byte length>:` and its JSON, in turn. */
function macOfRecord(secret: string, label: string, ...parts: string[]): string {
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8')).update(label);
  for (const part of parts) {
    const bytes = Buffer.from(JSON.stringify(part), 'utf8');
    hmac.update(`${bytes.length}:`).update(bytes);
  }
  return hmac.digest('base64url').slice(0, 22);
}

describe('the keyring', () => {
  const secret = 'a deployment secret';

  test('makes the MACs it made before, so ids issued by an instance of the last release still verify', async () => {
    const keyring = createKeyring(secret);
    const parts = ['user:alice', 'demo', 'é\u{1F600} and a lone \uD800', ''];
    expect(await keyring.mac('conversation', ...parts)).toBe(macOfRecord(secret, 'conversation', ...parts));
    expect(keyring.macNow('upstream-conversation', 'a', 'b')).toBe(macOfRecord(secret, 'upstream-conversation', 'a', 'b'));
    const [nonce, mac] = (await keyring.issue('conversation', 'user:alice', 'demo')).split('.');
    expect(mac).toBe(macOfRecord(secret, 'conversation', 'user:alice', 'demo', nonce!));
  });

  test('issues distinct tokens across many blocks of nonces, each checking under its own binding only', async () => {
    const keyring = createKeyring(undefined);
    const tokens = await Promise.all(Array.from({ length: 1_000 }, () => keyring.issue('conversation', 'owner', 'demo')));
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(tokens.every((token) => /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/.test(token))).toBe(true);
    expect(new Set(tokens.map((token) => token.slice(0, 22))).size).toBe(tokens.length);
    expect(await keyring.check('conversation', tokens[999], 'owner', 'demo')).toBe(true);
    expect(await keyring.check('conversation', tokens[999], 'owner', 'other')).toBe(false);
    expect(await keyring.check('task', tokens[999], 'owner', 'demo')).toBe(false);
    expect(await createKeyring(undefined).check('conversation', tokens[0], 'owner', 'demo')).toBe(false);
  });
});
