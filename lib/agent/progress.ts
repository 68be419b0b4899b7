/**
 * Streams an agent's partial reply and its steps as `notifications/progress` (both eras; a no-op without a
 * progress token). At most one notification goes out per FLUSH_MS for each run of text or of notes: text carries
 * what was received since the previous one, and the status notes of an interval become one, the latest with a
 * count of the others ("research → writer: calling notes.add… (and 15 more)"), so a chain of agents making many
 * calls at once costs the client, and the 2025-11-25 stream log, a few notifications, not one per call. Progress
 * counts notifications, so it always increases. A silence longer than HEARTBEAT_MS sends a "still working"
 * notification, which resets clients' request timeouts (keep-alive comments on the SSE stream keep proxies
 * open but do not reset SDK timeouts).
 *
 * A paid call's context holds its reply (context.ts withReplyHeld): its progress keeps the numbers and says a fixed
 * status, and its run report keeps no text, whatever is written here.
 */

import type { RequestContext } from '../server/context.js';

export const FLUSH_MS = 100;
export const HEARTBEAT_MS = 10_000;

/** What waits for the next flush, in order: runs of text joined, runs of notes counted. */
type Held = { kind: 'text'; text: string } | { kind: 'notes'; latest: string; count: number };

/** Where a call's reply text and steps go as they happen. */
export interface ProgressReporter {
  /** A status line (not reply text). */
  note(message: string): void;
  /** Part of the reply. */
  text(chunk: string): void;
  flush(): void;
  stop(): void;
}

const nothing = () => undefined;
const SILENT: ProgressReporter = { note: nothing, text: nothing, flush: nothing, stop: nothing };

/**
 * The call's reporter: progress notifications when its client can get them, and the call's run report
 * (context.ts RunReport) when it has one. A call with neither, the usual one, gets a reporter that does nothing:
 * no timers, nothing held.
 */
export function progressOf(ctx: Pick<RequestContext, 'progress' | 'sendsProgress' | 'report'>): ProgressReporter {
  const { report } = ctx;
  const progress = ctx.sendsProgress ? createProgressReporter(ctx) : undefined;
  if (!report) return progress ?? SILENT;
  if (!progress) return { note: (line) => report.note(line), text: (chunk) => report.text(chunk), flush: nothing, stop: nothing };
  return {
    ...progress,
    text: (chunk) => { report.text(chunk); progress.text(chunk); },
    note: (line) => { report.note(line); progress.note(line); },
  };
}

export function createProgressReporter(ctx: Pick<RequestContext, 'progress'>, now: () => number = Date.now): ProgressReporter {
  let count = 0;
  let held: Held[] = [];
  let lastSent = now();
  let flushTimer: ReturnType<typeof setTimeout> | undefined;

  const send = (message: string) => {
    lastSent = now();
    ctx.progress(++count, undefined, message);
  };
  const flush = () => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    const out = held;
    held = [];
    for (const run of out) send(run.kind === 'text' ? run.text : run.count > 1 ? `${run.latest} (and ${run.count - 1} more)` : run.latest);
  };
  /** Sends now when nothing went out for FLUSH_MS (or ever), else at the end of the interval. */
  const due = () => {
    if (count === 0 || now() - lastSent >= FLUSH_MS) flush();
    else flushTimer ??= setTimeout(flush, FLUSH_MS);
  };
  const hold = (run: Held) => {
    const last = held.at(-1);
    if (last?.kind === 'notes' && run.kind === 'notes') held[held.length - 1] = { kind: 'notes', latest: run.latest, count: last.count + 1 };
    else held.push(run);
    due();
  };
  const heartbeat = setInterval(() => {
    if (now() - lastSent >= HEARTBEAT_MS) send('Still working…');
  }, HEARTBEAT_MS / 2);

  return {
    /** A status line (not reply text). */
    note(message: string) {
      hold({ kind: 'notes', latest: message, count: 1 });
    },
    /** Part of the reply. */
    text(chunk: string) {
      if (!chunk) return;
      // Most chunks join the text already held: no object made for them (one per streamed chunk, issue 48).
      const last = held[held.length - 1];
      if (last?.kind === 'text') {
        last.text += chunk;
        due();
      } else hold({ kind: 'text', text: chunk });
    },
    flush,
    stop() {
      clearTimeout(flushTimer);
      clearInterval(heartbeat);
    },
  };
}
