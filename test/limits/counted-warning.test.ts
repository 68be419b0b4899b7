/** Operator lines for repeated events (fail-open admissions, evictions, bounds hit): immediate, then counted. */

import { afterEach, expect, test, vi } from 'vitest';
import { createCountedWarning } from '../../lib/warn.js';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

test('the first occurrence is logged at once; later ones in the minute are reported together with their count', () => {
  vi.useFakeTimers();
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const admitted = createCountedWarning((reason, count) => `limit unchecked (${reason}): ${count} admitted`);
  admitted.note('down');
  expect(warn.mock.calls.map((c) => c[0])).toEqual(['[agent-mcp] limit unchecked (down): 1 admitted']);
  for (let i = 0; i < 24; i++) admitted.note('still down');
  expect(warn).toHaveBeenCalledTimes(1);
  vi.advanceTimersByTime(60_000);
  expect(warn.mock.calls.map((c) => c[0])).toEqual([
    '[agent-mcp] limit unchecked (down): 1 admitted',
    '[agent-mcp] limit unchecked (still down): 24 admitted',
  ]);
  vi.advanceTimersByTime(120_000);
  expect(warn).toHaveBeenCalledTimes(2);
});
