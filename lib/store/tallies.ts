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

/** Buckets examined for expiry per write, so expired ones go in time proportional to writes. */
const SWEEP_PER_WRITE = 4;

export class Tallies {
  readonly #buckets = new Map<string, Bucket>();
  #sweeping: Iterator<[string, Bucket]> | undefined;

  /** Live buckets (tests read it). */
  get size(): number {
    return this.#buckets.size;
  }

  add(tallies: Tally[], now = Date.now()): void {
    for (const { key, ttlMs, add, ranked = [] } of tallies) {
      const bucket = this.#live(key, now) ?? this.#make(key, now + ttlMs);
      for (const [field, n] of Object.entries(add)) bump(bucket.fields, field, n);
      for (const one of ranked) rank(bucket, one);
    }
    this.#sweep(now);
  }

  read(keys: string[], now = Date.now()): Array<Record<string, number>> {
    return keys.map((key) => Object.fromEntries(this.#live(key, now)?.fields ?? []));
  }

  #live(key: string, now: number): Bucket | undefined {
    const bucket = this.#buckets.get(key);
    if (bucket && bucket.expires <= now) this.#buckets.delete(key);
    return bucket && bucket.expires > now ? bucket : undefined;
  }

  #make(key: string, expires: number): Bucket {
    const bucket: Bucket = { expires, fields: new Map(), sets: new Map() };
    this.#buckets.set(key, bucket);
    return bucket;
  }

  #sweep(now: number): void {
    for (let i = 0; i < SWEEP_PER_WRITE; i++) {
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

/** The TALLY script's ranking (tally-scripts.ts), step for step. */
function rank(bucket: Bucket, { set, member, weight, bound, add }: RankedAdd): void {
  let members = bucket.sets.get(set);
  if (!members) bucket.sets.set(set, (members = new Map()));
  const score = (members.get(member) ?? 0) + weight;
  members.set(member, score);
  for (const [suffix, n] of Object.entries(add)) bump(bucket.fields, `${set}:${suffix}:${member}`, n);
  if (members.size <= bound) return;
  let lightest: string | undefined;
  let least = Infinity;
  for (const [other, s] of members) {
    if (other === member) continue;
    if (s < least || (s === least && other < lightest!)) [lightest, least] = [other, s];
  }
  const gone = score <= least ? member : lightest!;
  members.delete(gone);
  for (const suffix of Object.keys(add)) bucket.fields.delete(`${set}:${suffix}:${gone}`);
  bump(bucket.fields, `${set}:dropped`, 1);
}
