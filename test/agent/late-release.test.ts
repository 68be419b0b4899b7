/** The background release of lib/agent/late-release.ts is bounded: at most MAX_PENDING wait at once per instance. */

import { expect, test, vi } from 'vitest';
import { MAX_PENDING, releaseLater } from '../../lib/agent/late-release.js';
import { MemoryStore } from '../../lib/store/memory.js';

test('at most 1,000 refused releases wait to be written again per instance; past that one is left to expire and the operator is told', async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const store = new MemoryStore();
  const leave = vi.spyOn(store, 'leave');
  await store.set('claim', 1, 60_000);
  // Each waits 250 ms before its first try.
  for (let i = 0; i < MAX_PENDING; i++) releaseLater(store, { delete: [`claim:${i}`] }, Date.now() + 1_000);
  releaseLater(store, { delete: ['claim'] }, Date.now() + 1_000);
  expect(MAX_PENDING).toBe(1_000);
  expect(warn).toHaveBeenCalledTimes(1);
  expect(String(warn.mock.calls[0]![0])).toBe('[agent-mcp] 1 call release the shared store refused could not be written again '
    + '(1000 were already pending); their retry claims and conversation turns were left to expire, so the next turn or retry waited for that.');
  await vi.waitFor(() => expect(leave).toHaveBeenCalledTimes(MAX_PENDING), { timeout: 5_000 });
  expect(await store.get('claim')).toBe(1);
  expect(leave.mock.calls.some(([release]) => release.delete?.includes('claim'))).toBe(false);
});
