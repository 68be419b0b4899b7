/**
 * An open SSE stream gets a keep-alive comment at least every KEEP_ALIVE_MS, so proxies keep a quiet stream open;
 * every open stream shares one timer for it (lib/shared-tick.ts), and none is left once the streams end.
 */

import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { KEEP_ALIVE_MS, SseStream } from '../../lib/http/sse.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

test('fifty open streams share one keep-alive timer, each gets its comment, and no timer is left once they end', async () => {
  const streams = Array.from({ length: 50 }, () => new SseStream({}));
  expect(vi.getTimerCount()).toBe(1);
  const readers = streams.map((s) => s.response.body!.pipeThrough(new TextDecoderStream()).getReader());
  vi.advanceTimersByTime(KEEP_ALIVE_MS);
  for (const reader of readers) expect((await reader.read()).value).toBe(': keep-alive\n\n');
  await Promise.all(streams.map((s) => s.finish()));
  expect(vi.getTimerCount()).toBe(0);
  for (const reader of readers) expect((await reader.read()).done).toBe(true);
});
