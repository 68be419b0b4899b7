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
  sets: Map<string, Map<string, Member>>;
}

/** A member of a ranking: its score, and the names of its fields in the hash, made once (`<set>:<suffix>:<member>`). */
interface Member {
  score: number;
  names: Map<string, string>;
}

/**
 * Buckets examined for expiry each time one is made, so that expired ones go at least as fast as new ones come:
 * a bucket is made once a resolution's period, so this costs a warm write nothing (docs/performance.md "Issue 48:
 * the warm call"; sweeping on every write was an iterator's allocations per call).
 */
const SWEEP_PER_MAKE = 4;

export class Tallies {
  readonly #buckets = new Map<string, Bucket>();
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
      if (ranked) for (const one of ranked) rank(bucket, one);
    }
  }

  read(keys: string[], now = Date.now()): Array<Record<string, number>> {
    return keys.map((key) => Object.fromEntries(this.#live(key, now)?.fields ?? []));
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

/** The field `<set>:<suffix>:<member>` of `one`, its name made with the member's first write to the bucket. */
function nameOf(one: Member, set: string, suffix: string, member: string): string {
  let name = one.names.get(suffix);
  if (name === undefined) one.names.set(suffix, (name = `${set}:${suffix}:${member}`));
  return name;
}

/** The TALLY script's ranking (tally-scripts.ts), step for step. */
function rank(bucket: Bucket, { set, member, weight, bound, add }: RankedAdd): void {
  let members = bucket.sets.get(set);
  if (!members) bucket.sets.set(set, (members = new Map()));
  let one = members.get(member);
  if (!one) members.set(member, (one = { score: 0, names: new Map() }));
  one.score += weight;
  for (const suffix in add) bump(bucket.fields, nameOf(one, set, suffix, member), add[suffix]!);
  if (members.size <= bound) return;
  let lightest: string | undefined;
  let least = Infinity;
  for (const [other, { score }] of members) {
    if (other === member) continue;
    if (score < least || (score === least && other < lightest!)) [lightest, least] = [other, score];
  }
  const gone = one.score <= least ? member : lightest!;
  const goneMember = members.get(gone)!;
  members.delete(gone);
  for (const suffix in add) bucket.fields.delete(nameOf(goneMember, set, suffix, gone));
  bump(bucket.fields, `${set}:dropped`, 1);
}
