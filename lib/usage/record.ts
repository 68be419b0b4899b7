/**
 * What one request adds to the usage counters (buckets.ts): its calls' outcomes, summed, as one tally per resolution,
 * which the store writes in one command (types.ts `tally`). Unknown usage is counted as unknown, never as zero tokens
 * (docs/architecture.md rule 17); a caller is counted in its class's bounded ranking, the totals in plain counters that
 * drop nothing.
 */

import type { RankedAdd, Tally } from '../store/types.js';
import type { UsageTotal } from './meter.js';
import { bucketKey, bucketStart, CALLER_FIELDS, FIELD, field, RESOLUTIONS, TOP_CALLERS_PER_CLASS, ttlOf, type CALLER_SETS } from './buckets.js';

/** How one call ended, for the counters. */
export type CallOutcome =
  | { kind: 'call'; agent?: string; usage?: UsageTotal; earnedMicroUsd?: number }
  | { kind: 'error'; agent?: string; code: string; usage?: UsageTotal }
  | { kind: 'refusal'; reason: string; count?: number };

/** A caller as the page names it: its class's ranking and its label (label.ts). */
export interface CallerLabel {
  set: (typeof CALLER_SETS)[keyof typeof CALLER_SETS];
  label: string;
}

/** The tallies of one request's outcomes at `now`; none when it had none. */
export function talliesOf(outcomes: CallOutcome[], caller: CallerLabel | undefined, now: number): Tally[] {
  if (outcomes.length === 0) return [];
  const add: Record<string, number> = {};
  const bump = (name: string, n = 1) => void (n !== 0 && (add[name] = (add[name] ?? 0) + n));
  let calls = 0;
  let tokens = { input: 0, output: 0 };
  for (const outcome of outcomes) {
    if (outcome.kind === 'refusal') {
      bump(FIELD.refusals, outcome.count ?? 1);
      bump(field(FIELD.refused, outcome.reason), outcome.count ?? 1);
      continue;
    }
    const { agent, usage } = outcome;
    const both = (name: string, n = 1) => {
      bump(name, n);
      if (agent !== undefined) bump(field(name, agent), n);
    };
    calls++;
    both(FIELD.calls);
    if (outcome.kind === 'error') {
      both(FIELD.errors);
      bump(field(FIELD.error, outcome.code));
    }
    if (usage && usage.modelRequests > 0) {
      both(FIELD.input, usage.input);
      both(FIELD.output, usage.output);
      if (usage.unknownRequests > 0) both(FIELD.unknown);
      tokens = { input: tokens.input + usage.input, output: tokens.output + usage.output };
    }
    if (outcome.kind === 'call' && outcome.earnedMicroUsd !== undefined) {
      both(FIELD.paid);
      both(FIELD.earned, outcome.earnedMicroUsd);
    }
  }
  // Only calls that ran rank a caller: a flood of refused requests costs the rankings nothing.
  const ranked: RankedAdd[] = caller && calls > 0
    ? [{
      set: caller.set, member: caller.label, weight: calls + tokens.input + tokens.output, bound: TOP_CALLERS_PER_CLASS,
      add: { [CALLER_FIELDS.calls]: calls, [CALLER_FIELDS.input]: tokens.input, [CALLER_FIELDS.output]: tokens.output },
    }]
    : [];
  return RESOLUTIONS.map((resolution, i) => {
    const start = bucketStart(resolution, now);
    return { key: currentKey(i, resolution, start), ttlMs: ttlOf(resolution, start, now), add, ranked };
  });
}

/**
 * Each resolution's latest bucket key, a cache: made once a bucket's period, not once a request, so the store's
 * lookup hashes a string it has seen (docs/performance.md "Issue 48: the warm call").
 */
const latest = RESOLUTIONS.map(() => ({ start: Number.NaN, key: '' }));

function currentKey(i: number, resolution: (typeof RESOLUTIONS)[number], start: number): string {
  const kept = latest[i]!;
  if (kept.start !== start) Object.assign(kept, { start, key: bucketKey(resolution, start) });
  return kept.key;
}
