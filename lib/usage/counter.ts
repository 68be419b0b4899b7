/**
 * Counts each request to the MCP endpoint into the usage counters once it is done (after its stream, as the log
 * line): its calls' outcomes (outcome.ts) as one `tally` of the store, one command whatever the request held
 * (docs/architecture.md "What a call costs in store commands"). The write goes out beside the reply, never before
 * it, and on Vercel the instance is kept until it lands (lib/http/keep-alive.ts). A store that refuses it loses those
 * counts and says so in the operator's log, counted; the call itself is long answered. Refusals alone wait for the
 * next counted call on a shared store (held.ts), so a flood of refused requests costs no command each.
 */

import { keepAlive } from '../http/keep-alive.js';
import { clientIp } from '../limits/check.js';
import type { Observation } from '../observe/observation.js';
import type { Keyring } from '../server/keyring.js';
import type { Store, Tally } from '../store/types.js';
import { createCountedWarning } from '../warn.js';
import { FLUSH_MS, HeldRefusals } from './held.js';
import { createCallerLabels } from './label.js';
import { callOutcomeOf, taskOutcomeOf, taskRunOf } from './outcome.js';
import { talliesOf, type CallOutcome } from './record.js';

type Env = Record<string, string | undefined>;

/** USAGE_COUNTERS: `on` (the default) counts every request for the usage page, `off` counts nothing; else a TypeError. */
export function readUsageCounting(env: Env): boolean {
  const value = env.USAGE_COUNTERS?.trim().toLowerCase() || 'on';
  if (value !== 'on' && value !== 'off') throw new TypeError(`USAGE_COUNTERS must be on or off, got "${env.USAGE_COUNTERS}".`);
  return value === 'on';
}

/** Counts one request once it is done; `settled` says when what it counted so far has gone to the store. */
export interface UsageCounter {
  (observation: Observation, status: number, request: Request): void;
  /**
   * Resolves once every request counted so far is written (or its write failed and was reported): its call done and
   * its tally sent, or, for refusals held on a shared store, held (held.ts) or written by the flush. For whoever must
   * read the counts after the calls (tests; a process about to stop), rather than guessing how long the writes take.
   */
  settled(): Promise<void>;
}

export interface UsageCounterOptions {
  store: Store;
  keyring: Keyring;
  /** Whether the forwarded headers name the client's address (on Vercel; lib/limits/check.ts clientIp). */
  trustForwarded: boolean;
}

export function createUsageCounter({ store, keyring, trustForwarded }: UsageCounterOptions): UsageCounter {
  const lost = createCountedWarning((detail, count) =>
    `usage counters: the store did not take ${count === 1 ? 'one write' : `${count} writes`} of counts since the last report (latest: ${detail}).`);
  const held = new HeldRefusals();
  const labelOf = createCallerLabels(keyring);
  // Where an instance may be frozen once its response ends (keep-alive.ts), read once: process.env per request was 1%
  // of a warm call's CPU (docs/performance.md "Issue 48: the warm call").
  const onVercel = Boolean(process.env.VERCEL);
  /** Requests counted whose call is not done yet or whose tally is not written yet, and flushes under way. */
  const pending = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };
  let flushing: ReturnType<typeof setTimeout> | undefined;
  const write = (tallies: Tally[]): Promise<void> =>
    store.tally(tallies).catch((error: unknown) => lost.note(error instanceof Error ? error.message : String(error)));
  const flush = () => {
    flushing = undefined;
    if (!held.empty) track(write(held.take()));
  };
  /** The request's write, once it is done; none when it counted nothing or only held refusals. */
  const tally = (observation: Observation, outcomes: CallOutcome[], request: Request): Promise<void> | undefined => {
    if (outcomes.length === 0) return undefined;
    const now = Date.now();
    // On a shared store a request that only held refusals waits for the next counted call (held.ts).
    if (store.shared && outcomes.every((o) => o.kind === 'refusal')) {
      held.add(outcomes.map((o) => (o as { reason: string }).reason), now);
      flushing ??= setTimeout(flush, FLUSH_MS);
      (flushing as { unref?: () => void }).unref?.();
      return undefined;
    }
    const { principal, session } = observation.who;
    const address = principal || session ? undefined : clientIp(request, trustForwarded);
    const counts = talliesOf(outcomes, labelOf(principal, session, address), now);
    const written = write(held.empty ? counts : [...held.take(), ...counts]);
    if (onVercel) keepAlive(written);
    return written;
  };
  /** What the request counts: its messages' outcomes now, or, for a call answered with a task, its run's once it ends. */
  const counted = (observation: Observation, status: number, request: Request): Promise<void> | undefined => {
    const run = taskRunOf(observation);
    if (run) return run.then((end) => tally(observation, [taskOutcomeOf(observation, end)], request));
    const outcomes = observation.operations().map((one) => callOutcomeOf(one, status)).filter((o): o is CallOutcome => o !== undefined);
    return tally(observation, outcomes, request);
  };
  const count = (observation: Observation, status: number, request: Request) =>
    track(new Promise<void>((resolve) => observation.whenDone(() => {
      let written: Promise<void> | undefined;
      try {
        written = counted(observation, status, request);
      } finally {
        resolve(written);
      }
    })));
  return Object.assign(count, {
    async settled() {
      while (pending.size > 0) await Promise.all(pending);
    },
  });
}
