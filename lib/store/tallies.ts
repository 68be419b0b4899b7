/**
 * The memory store's counters (types.ts Tally): what the Upstash TALLY script keeps, in one process's memory. They are
 * the operator's, not a caller's, so they sit outside the ledger's shares: no caller's writes can evict them, and they
 * evict nothing. Their size is bounded by their shape instead: each hash lives until its ttl (buckets of a fixed
 * number of resolutions, so a fixed number live at once), its plain fields are names the server chose, and each
 * ranking holds at most its bound of members.
 */

import type { RankedAdd, Tally } from './types.js';

interface Bucket {
  expires: number;
  fields: Map<string, number>;
  sets: Map<string, Map<string, number>>;
}

/**
 * Members whose field names (`<set>:<suffix>:<member>`) are kept per ranking, so that a caller calling again costs
 * no string made and hashed anew (docs/performance.md "Issue 48: the warm call"). Past it the ranking's names are
 * let go and made again: a flood of new callers costs names, never a wrong field, and the cache stays ~50 KB.
 */
const NAMED_MEMBERS = 64;

/**
 * Buckets examined for expiry each time one is made, so that expired ones go at least as fast as new ones come:
 * a bucket is made once a resolution's period, so this costs a warm write nothing (docs/performance.md "Issue 48:
 * the warm call"; sweeping on every write was an iterator's allocations per call).
 */
const SWEEP_PER_MAKE = 4;

export class Tallies {
  readonly #buckets = new Map<string, Bucket>();
  /** Per ranking, per member, per suffix: the field's name (NAMED_MEMBERS). */
  readonly #names = new Map<string, Map<string, Map<string, string>>>();
  #sweeping: Iterator<[string, Bucket]> | undefined;

  /** Live buckets (tests read it). */
  get size(): number {
    return this.#buckets.size;
  }

  add(tallies: Tally[], now = Date.now()): void {
    for (const { key, ttlMs, add, ranked } of tallies) {
      const bucket = this.#live(key, now) ?? this.#make(key, now + ttlMs, now);
      // for-in, not Object.entries: no array per field on every call.
      for (const field in add) bump(bucket.fields, field, add[field]!);
      if (ranked) for (const one of ranked) rank(bucket, one, this.#namesOf(one.set, one.member));
    }
  }

  read(keys: string[], now = Date.now()): Array<Record<string, number>> {
    return keys.map((key) => Object.fromEntries(this.#live(key, now)?.fields ?? []));
  }

  /** The field names of `member` of ranking `set`, by suffix, made as they are first asked for. */
  #namesOf(set: string, member: string): Map<string, string> {
    let members = this.#names.get(set);
    if (!members) this.#names.set(set, (members = new Map()));
    let names = members.get(member);
    if (!names) {
      if (members.size >= NAMED_MEMBERS) members.clear();
      members.set(member, (names = new Map()));
    }
    return names;
  }

  #live(key: string, now: number): Bucket | undefined {
    const bucket = this.#buckets.get(key);
    if (bucket && bucket.expires <= now) this.#buckets.delete(key);
    return bucket && bucket.expires > now ? bucket : undefined;
  }

  #make(key: string, expires: number, now: number): Bucket {
    this.#sweep(now);
    const bucket: Bucket = { expires, fields: new Map(), sets: new Map() };
    this.#buckets.set(key, bucket);
    return bucket;
  }

  #sweep(now: number): void {
    for (let i = 0; i < SWEEP_PER_MAKE; i++) {
      this.#sweeping ??= this.#buckets.entries();
      const next = this.#sweeping.next();
      if (next.done) {
        this.#sweeping = undefined;
        return;
      }
      if (next.value[1].expires <= now) this.#buckets.delete(next.value[0]);
    }
  }
}

function bump(fields: Map<string, number>, field: string, n: number): void {
  fields.set(field, (fields.get(field) ?? 0) + n);
}

/** The field `<set>:<suffix>:<member>`, its name kept in `names` (the member's, by suffix). */
function nameOf(names: Map<string, string>, set: string, suffix: string, member: string): string {
  let name = names.get(suffix);
  if (name === undefined) names.set(suffix, (name = `${set}:${suffix}:${member}`));
  return name;
}

/** The TALLY script's ranking (tally-scripts.ts), step for step; `names` are the member's field names. */
function rank(bucket: Bucket, { set, member, weight, bound, add }: RankedAdd, names: Map<string, string>): void {
  let members = bucket.sets.get(set);
  if (!members) bucket.sets.set(set, (members = new Map()));
  const score = (members.get(member) ?? 0) + weight;
  members.set(member, score);
  for (const suffix in add) bump(bucket.fields, nameOf(names, set, suffix, member), add[suffix]!);
  if (members.size <= bound) return;
  let lightest: string | undefined;
  let least = Infinity;
  for (const [other, s] of members) {
    if (other === member) continue;
    if (s < least || (s === least && other < lightest!)) [lightest, least] = [other, s];
  }
  const gone = score <= least ? member : lightest!;
  members.delete(gone);
  for (const suffix in add) bucket.fields.delete(`${set}:${suffix}:${gone}`);
  bump(bucket.fields, `${set}:dropped`, 1);
}
