/** Text joined chunk by chunk (lib/joined-text.ts) reads exactly as the chunks joined, however it is flattened on the way. */

import { expect, test } from 'vitest';
import { JoinedText } from '../lib/joined-text.js';

test('20,000 chunks of every size from 0 to 40 characters read as their join, at every point', () => {
  const joined = new JoinedText();
  let plain = '';
  for (let i = 0; i < 20_000; i++) {
    const chunk = String.fromCharCode(97 + (i % 26)).repeat(i % 41) + (i % 5 === 0 ? 'é' : '');
    joined.add(chunk);
    plain += chunk;
    if (i % 1_009 === 0) expect(joined.text).toBe(plain);
  }
  expect(joined.text).toBe(plain);
  expect(joined.length).toBe(plain.length);
  joined.keepLast(100);
  expect(joined.text).toBe(plain.slice(-100));
  joined.clear();
  expect(joined.text).toBe('');
});
