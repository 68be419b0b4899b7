/**
 * The usage page's numbers (issue 46): the counters of one window's buckets (buckets.ts), read in one round trip,
 * one command on Redis (types.ts `readTallies`: 60, 24 or 30 hashes), and shaped as the page and its JSON show them.
 * Every instance reads the same buckets of a shared store, so every instance shows the same totals.
 */

import type { Store } from '../store/types.js';
import { bucketKey, bucketStart, CALLER_FIELDS, CALLER_SETS, FIELD, MICRO_USD, WINDOWS } from './buckets.js';
import type { UsageView, UsageWindow } from './view.js';

/** Callers the page lists, of the three rankings together. */
export const TOP_CALLERS_SHOWN = 20;

type Caller = UsageView['topCallers'][number];

const SET_KIND: Readonly<Record<string, string | undefined>> = { [CALLER_SETS.session]: 'session', [CALLER_SETS.address]: 'address' };
const SUFFIX: Readonly<Record<string, 'calls' | 'inputTokens' | 'outputTokens'>> = {
  [CALLER_FIELDS.calls]: 'calls', [CALLER_FIELDS.input]: 'inputTokens', [CALLER_FIELDS.output]: 'outputTokens',
};
const CALLER_FIELD = new RegExp(`^([${Object.values(CALLER_SETS).join('')}]):(?:([${Object.values(CALLER_FIELDS).join('')}]):(.*)|(dropped))$`, 's');

/** The counters of `window` ending at `now`, as the page and its JSON show them. */
export async function readUsage(store: Store, window: UsageWindow, now: number = Date.now()): Promise<UsageView> {
  const { resolution, buckets } = WINDOWS[window];
  const last = bucketStart(resolution, now);
  const starts = Array.from({ length: buckets }, (_, i) => last - (buckets - 1 - i) * resolution.bucketSeconds);
  const hashes = await store.readTallies(starts.map((start) => bucketKey(resolution, start)));

  const sum = (name: string) => hashes.reduce((n, hash) => n + (hash[name] ?? 0), 0);
  const refusals: Record<string, number> = {};
  const errors: Record<string, number> = {};
  const agents = new Set<string>();
  const callers = new Map<string, Caller>();
  let dropped = 0;
  for (const hash of hashes) {
    for (const [name, n] of Object.entries(hash)) {
      const caller = CALLER_FIELD.exec(name);
      if (caller) {
        const [, set, suffix, label, isDropped] = caller;
        if (isDropped) dropped += n;
        else addCaller(callers, set!, label!, SUFFIX[suffix!]!, n);
        continue;
      }
      const bar = name.indexOf('|');
      if (bar < 0) continue;
      const [kind, part] = [name.slice(0, bar), name.slice(bar + 1)];
      if (kind === FIELD.refused) refusals[part] = (refusals[part] ?? 0) + n;
      else if (kind === FIELD.error) errors[part] = (errors[part] ?? 0) + n;
      else if (kind === FIELD.calls) agents.add(part);
    }
  }
  const ranked = [...callers.values()].sort((a, b) =>
    b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens) || b.calls - a.calls || (a.label < b.label ? -1 : 1));
  const agentList = [...agents].sort();
  return {
    window,
    from: new Date(starts[0]! * 1000).toISOString(),
    to: new Date(now).toISOString(),
    bucketSeconds: resolution.bucketSeconds,
    generatedAt: new Date(now).toISOString(),
    totals: {
      calls: sum(FIELD.calls), errors: sum(FIELD.errors), refusals: sum(FIELD.refusals), inputTokens: sum(FIELD.input),
      outputTokens: sum(FIELD.output), unknownUsageCalls: sum(FIELD.unknown), earnedUsd: usd(sum(FIELD.earned)),
    },
    series: agentList.map((agent) => ({
      agent,
      points: hashes.map((hash, i) => ({
        t: new Date(starts[i]! * 1000).toISOString(),
        calls: hash[`${FIELD.calls}|${agent}`] ?? 0,
        inputTokens: hash[`${FIELD.input}|${agent}`] ?? 0,
        outputTokens: hash[`${FIELD.output}|${agent}`] ?? 0,
      })),
    })),
    topCallers: ranked.slice(0, TOP_CALLERS_SHOWN),
    refusals,
    errors,
    earnings: agentList
      .map((agent) => ({ agent, usd: usd(sum(`${FIELD.earned}|${agent}`)), paidCalls: sum(`${FIELD.paid}|${agent}`) }))
      .filter((earned) => earned.paidCalls > 0),
    topCallersTruncated: dropped > 0 || ranked.length > TOP_CALLERS_SHOWN,
  };
}

function addCaller(callers: Map<string, Caller>, set: string, label: string, counter: keyof Omit<Caller, 'label' | 'kind'>, n: number): void {
  const id = `${set}:${label}`;
  let caller = callers.get(id);
  if (!caller) {
    // A principal's label starts with its kind (label.ts); sessions and addresses are their class.
    const kind = SET_KIND[set] ?? label.slice(0, Math.max(0, label.indexOf(':'))) ?? 'principal';
    callers.set(id, (caller = { label, kind, calls: 0, inputTokens: 0, outputTokens: 0 }));
  }
  caller[counter] += n;
}

/** Millionths of a dollar as a decimal string: 12500 → "0.0125", 0 → "0". */
function usd(micro: number): string {
  const whole = Math.floor(micro / MICRO_USD);
  const fraction = String(micro % MICRO_USD).padStart(6, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}
