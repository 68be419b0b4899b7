/**
 * A caller's label on the usage page (lib/usage/label.ts): a session's or an address's is a MAC under the server's
 * key, made once while it is kept, so a caller calling again costs no MAC; past the bound the oldest is made again,
 * and it is the same label.
 */

import { describe, expect, test } from 'vitest';
import { CALLER_SETS } from '../../lib/usage/buckets.js';
import { createCallerLabels, MAX_KEPT_LABELS } from '../../lib/usage/label.js';
import { createKeyring, type Keyring } from '../../lib/server/keyring.js';

function counting(secret: string): Keyring & { macs: number } {
  const keyring = createKeyring(secret);
  const counted = { ...keyring, macs: 0 };
  counted.macNow = (label, ...parts) => (counted.macs++, keyring.macNow(label, ...parts));
  return counted;
}

describe('caller labels', () => {
  test('an address calling again is labelled without another MAC, with the same label', () => {
    const keyring = counting('a-secret-of-this-deployment-32-bytes');
    const labelOf = createCallerLabels(keyring);
    const first = labelOf(undefined, undefined, '203.0.113.7');
    for (let i = 0; i < 100; i++) expect(labelOf(undefined, undefined, '203.0.113.7')).toEqual(first);
    expect(first).toEqual({ set: CALLER_SETS.address, label: expect.stringMatching(/^ip:[0-9a-f]{8}$/) });
    expect(keyring.macs).toBe(1);
  });

  test('a session and an address of the same text have labels of their own class, each a MAC under the key', () => {
    const labelOf = createCallerLabels(createKeyring('a-secret-of-this-deployment-32-bytes'));
    const session = labelOf(undefined, 'same-text', undefined)!;
    const address = labelOf(undefined, undefined, 'same-text')!;
    expect(session.set).toBe(CALLER_SETS.session);
    expect(session.label).toMatch(/^session:[0-9a-f]{8}$/);
    expect(address.label.slice(3)).not.toBe(session.label.slice(8));
    // Another key names the same caller otherwise: nobody without MCP_STATE_SECRET can tell which address it is.
    expect(createCallerLabels(createKeyring('another-secret-of-another-deployment'))(undefined, undefined, 'same-text')).not.toEqual(address);
  });

  test('past the bound the oldest label is made again, and it is the same label', () => {
    const keyring = counting('a-secret-of-this-deployment-32-bytes');
    const labelOf = createCallerLabels(keyring);
    const first = labelOf(undefined, undefined, '198.51.100.0');
    for (let i = 1; i <= MAX_KEPT_LABELS; i++) labelOf(undefined, undefined, `10.0.${i >> 8}.${i & 255}`);
    expect(keyring.macs).toBe(MAX_KEPT_LABELS + 1);
    expect(labelOf(undefined, undefined, '198.51.100.0')).toEqual(first);
    expect(keyring.macs).toBe(MAX_KEPT_LABELS + 2);
  });

  test('a principal is named by its kind and subject, with no MAC', () => {
    const keyring = counting('a-secret-of-this-deployment-32-bytes');
    const labelOf = createCallerLabels(keyring);
    expect(labelOf({ kind: 'api-key', subject: 'alice' }, 'a-session', '203.0.113.7')).toEqual({ set: CALLER_SETS.principal, label: 'api-key:alice' });
    expect(keyring.macs).toBe(0);
  });
});
