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

import type { RequestContext, RunReport } from '../server/context.js';
import { SharedTick } from '../shared-tick.js';

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
  return new ReportingTo(report, progress);
}

/** Text and notes to the call's run report, and to its progress notifications when it sends them. */
class ReportingTo implements ProgressReporter {
  constructor(private readonly report: RunReport, private readonly progress: ProgressReporter | undefined) {}

  note(line: string): void {
    this.report.note(line);
    this.progress?.note(line);
  }

  text(chunk: string): void {
    this.report.text(chunk);
    this.progress?.text(chunk);
  }

  flush(): void {
    this.progress?.flush();
  }

  stop(): void {
    this.progress?.stop();
  }
}

export function createProgressReporter(ctx: Pick<RequestContext, 'progress'>, now: () => number = Date.now): ProgressReporter {
  return new Reporter(ctx, now);
}

/**
 * Held runs wait for the flush tick, which looks every FLUSH_MS / 4 and sends once FLUSH_MS has passed since the
 * last notification: a tail of text goes out 100–125 ms after the notification before it, never sooner.
 */
const FLUSHES = new SharedTick<Reporter>(FLUSH_MS / 4, (reporter, at) => reporter.due(at));
const HEARTBEATS = new SharedTick<Reporter>(HEARTBEAT_MS / 2, (reporter, at) => reporter.beat(at));

/**
 * One call's reporter: an object with its state in fields, joined to the shared ticks rather than holding timers and
 * closures of its own (issue 48: a thousand calls in flight held a flush timer, a heartbeat interval and seven
 * closures each).
 */
class Reporter implements ProgressReporter {
  #count = 0;
  #held: Held[] = [];
  #lastSent: number;
  readonly #ctx: Pick<RequestContext, 'progress'>;
  readonly #now: () => number;

  constructor(ctx: Pick<RequestContext, 'progress'>, now: () => number) {
    this.#ctx = ctx;
    this.#now = now;
    this.#lastSent = now();
    HEARTBEATS.join(this);
  }

  /** A status line (not reply text). */
  note(message: string): void {
    const last = this.#held[this.#held.length - 1];
    if (last?.kind === 'notes') {
      last.latest = message;
      last.count += 1;
    } else this.#held.push({ kind: 'notes', latest: message, count: 1 });
    this.#due();
  }

  /** Part of the reply. */
  text(chunk: string): void {
    if (!chunk) return;
    // Most chunks join the text already held: no object made for them (one per streamed chunk, issue 48).
    const last = this.#held[this.#held.length - 1];
    if (last?.kind === 'text') last.text += chunk;
    else this.#held.push({ kind: 'text', text: chunk });
    this.#due();
  }

  flush(): void {
    FLUSHES.leave(this);
    const out = this.#held;
    if (!out.length) return;
    this.#held = [];
    for (const run of out) this.#send(run.kind === 'text' ? run.text : run.count > 1 ? `${run.latest} (and ${run.count - 1} more)` : run.latest);
  }

  stop(): void {
    FLUSHES.leave(this);
    HEARTBEATS.leave(this);
  }

  /** The flush tick's look: sends what is held once FLUSH_MS has passed since the last notification. */
  due(at: number): void {
    if (at - this.#lastSent >= FLUSH_MS) this.flush();
  }

  /** The heartbeat tick's look. */
  beat(at: number): void {
    if (at - this.#lastSent >= HEARTBEAT_MS) this.#send('Still working…');
  }

  /** Sends now when nothing went out for FLUSH_MS (or ever), else at the flush tick that ends the interval. */
  #due(): void {
    if (this.#count === 0 || this.#now() - this.#lastSent >= FLUSH_MS) this.flush();
    else FLUSHES.join(this);
  }

  #send(message: string): void {
    this.#lastSent = this.#now();
    this.#ctx.progress(++this.#count, undefined, message);
  }
}
