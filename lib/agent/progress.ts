/**
 * Streams an agent's partial reply as `notifications/progress` (both eras; a no-op without a progress token).
 * Text is coalesced to at most one notification per FLUSH_MS, each carrying the text received since the
 * previous one; progress counts notifications, so it always increases. A silence longer than HEARTBEAT_MS
 * sends a "still working" notification, which resets clients' request timeouts (keep-alive comments on the
 * SSE stream keep proxies open but do not reset SDK timeouts).
 */

import type { RequestContext } from '../server/context.js';

export const FLUSH_MS = 100;
export const HEARTBEAT_MS = 10_000;

export function createProgressReporter(ctx: Pick<RequestContext, 'progress'>, now: () => number = Date.now) {
  let count = 0;
  let pending = '';
  let lastSent = now();
  let flushTimer: ReturnType<typeof setTimeout> | undefined;

  const send = (message: string) => {
    lastSent = now();
    ctx.progress(++count, undefined, message);
  };
  const flush = () => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    if (pending) send(pending);
    pending = '';
  };
  const heartbeat = setInterval(() => {
    if (now() - lastSent >= HEARTBEAT_MS) send('Still working…');
  }, HEARTBEAT_MS / 2);

  return {
    /** A status line (not reply text). */
    note(message: string) {
      flush();
      send(message);
    },
    /** Part of the reply. */
    text(chunk: string) {
      pending += chunk;
      if (now() - lastSent >= FLUSH_MS) flush();
      else flushTimer ??= setTimeout(flush, FLUSH_MS);
    },
    flush,
    stop() {
      clearTimeout(flushTimer);
      clearInterval(heartbeat);
    },
  };
}
