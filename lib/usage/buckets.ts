/**
 * Where the usage counters live (docs/observability.md "Usage counters"): one hash of counters per time bucket, at
 * three resolutions, each kept a little longer than the longest window that reads it, then expired by the store.
 * Field names are the counters' names below, so the writer (record.ts) and the reader (read.ts) share them.
 */

import type { UsageWindow } from './view.js';

export interface Resolution {
  /** The key's letter. */
  name: 'm' | 'h' | 'd';
  bucketSeconds: number;
  /** How long a bucket is kept past its start. */
  keepSeconds: number;
}

const MINUTE = 60;
const HOUR = 3_600;
const DAY = 86_400;

/** 1-minute buckets kept 2 hours, 1-hour buckets 2 days, 1-day buckets 31 days. */
export const RESOLUTIONS: readonly Resolution[] = [
  { name: 'm', bucketSeconds: MINUTE, keepSeconds: 2 * HOUR },
  { name: 'h', bucketSeconds: HOUR, keepSeconds: 2 * DAY },
  { name: 'd', bucketSeconds: DAY, keepSeconds: 31 * DAY },
];

/** What each window of the page reads: its resolution and how many buckets (the current one included). */
export const WINDOWS: Readonly<Record<UsageWindow, { resolution: Resolution; buckets: number }>> = {
  hour: { resolution: RESOLUTIONS[0]!, buckets: 60 },
  day: { resolution: RESOLUTIONS[1]!, buckets: 24 },
  month: { resolution: RESOLUTIONS[2]!, buckets: 30 },
};

/** The start (epoch seconds) of the bucket holding `ms`. */
export const bucketStart = (resolution: Resolution, ms: number): number =>
  Math.floor(ms / 1000 / resolution.bucketSeconds) * resolution.bucketSeconds;

/** The hash of one bucket. */
export const bucketKey = (resolution: Resolution, start: number): string => `usage:${resolution.name}:${start}`;

/** How long the bucket starting at `start` still lives, from `ms`. */
export const ttlOf = (resolution: Resolution, start: number, ms: number): number =>
  Math.max(1, (start + resolution.keepSeconds) * 1000 - ms);

/**
 * Counter names. A total has the bare name; per agent `<name>|<agent>`; refusals `refused|<reason>`, errors
 * `error|<code>`. Callers are rankings (types.ts Tally): one per class, so one class cannot push another out.
 */
export const FIELD = {
  calls: 'calls', errors: 'errors', refusals: 'refusals', input: 'in', output: 'out', unknown: 'unknown',
  paid: 'paid', earned: 'earned', refused: 'refused', error: 'error',
} as const;

/** The caller rankings: verified principals, sessions the server issued, and callers known by their address alone. */
export const CALLER_SETS = { principal: 'p', session: 's', address: 'a' } as const;

/** What a ranking keeps per caller (the hash field `<set>:<suffix>:<label>`). */
export const CALLER_FIELDS = { calls: 'c', input: 'i', output: 'o' } as const;

/** Callers each ranking of a bucket keeps (the page shows 20 of the three rankings together). */
export const TOP_CALLERS_PER_CLASS = 25;

/** Earnings are counted in millionths of a dollar (USDC's smallest unit). */
export const MICRO_USD = 1_000_000;

export const field = (name: string, part?: string): string => (part === undefined ? name : `${name}|${part}`);
