import { expect, test } from 'vitest';
import { sha256Hex } from '../lib/digest.js';

test('sha256Hex is the SHA-256 of the UTF-8 text, in lowercase hex', async () => {
  expect(await sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  expect(await sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  const web = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode('héllo ✓')));
  expect(await sha256Hex('héllo ✓')).toBe(Array.from(web, (b) => b.toString(16).padStart(2, '0')).join(''));
});
