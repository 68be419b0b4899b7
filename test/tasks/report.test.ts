/** A run's report keeps the reply's last TEXT_SO_FAR_CHARS characters, exactly, however many chunks it came in. */

import { expect, test } from 'vitest';
import { createRunReport, TEXT_SO_FAR_CHARS } from '../../lib/tasks/report.js';

test('the text so far is the last TEXT_SO_FAR_CHARS characters of the reply, before and after it passes that length', () => {
  const report = createRunReport();
  let reply = '';
  for (let i = 0; reply.length < 5 * TEXT_SO_FAR_CHARS; i++) {
    const chunk = ` w${i}${'x'.repeat(i % 7)}`;
    report.text(chunk);
    reply += chunk;
    if (i % 997 === 0 || reply.length > 5 * TEXT_SO_FAR_CHARS) expect(report.soFar().text).toBe(reply.slice(-TEXT_SO_FAR_CHARS));
  }
  report.withhold();
  expect(report.soFar()).toMatchObject({ text: '', withheld: true });
});
