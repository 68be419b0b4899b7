/**
 * The usage page's numbers (issue 46): the counters lib/usage writes per time bucket, read back for one window.
 * Signature first, so the page (H18) can build on it; the body lands with the counters.
 */

import type { Store } from '../store/types.js';
import type { UsageView, UsageWindow } from './view.js';

/** The counters of `window` ending at `now`, as the page and its JSON show them. */
export async function readUsage(store: Store, window: UsageWindow, now: number = Date.now()): Promise<UsageView> {
  void store;
  const bucketSeconds = window === 'hour' ? 60 : window === 'day' ? 3600 : 86400;
  const span = window === 'hour' ? 3600 : window === 'day' ? 86400 : 30 * 86400;
  return {
    window, from: new Date(now - span * 1000).toISOString(), to: new Date(now).toISOString(), bucketSeconds,
    generatedAt: new Date(now).toISOString(),
    totals: { calls: 0, errors: 0, refusals: 0, inputTokens: 0, outputTokens: 0, unknownUsageCalls: 0, earnedUsd: '0' },
    series: [], topCallers: [], refusals: {}, errors: {}, earnings: [], topCallersTruncated: false,
  };
}
