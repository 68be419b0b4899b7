/**
 * The embedded store: one process's memory. It serves `npm start`, tests and single-instance deployments;
 * across serverless instances it is not shared, which start-up says.
 *
 * Values are kept as JSON text, as a shared store keeps them: a read is a copy, and the text's length is what
 * an entry costs. The store has a budget of entries and bytes (MEMORY_STORE_MAX_ENTRIES, MEMORY_STORE_MAX_BYTES);
 * over it, the least recently used entries go first, so a burst of callers cannot grow the process without
 * bound. Map order is the recency order: every read or write moves its key to the end.
 */

import { integerEnv } from '../config.js';
import { createCountedWarning } from '../warn.js';
import type { Entered, EnterRequest, LeaveRequest, Ready, Store, TurnEntry, TurnExit, WaitOptions } from './types.js';
import { DEFAULT_WATCH_MS, Watcher } from './watch.js';

interface Entry {
  /** JSON text of a value, or of each item of a list. */
  value: string | string[];
  bytes: number;
  expires: number;
}

export interface MemoryBudget {
  /** Most bytes of JSON text (and keys) held. */
  maxBytes: number;
  /** Most entries held. */
  maxEntries: number;
}

/**
 * 64 MiB of JSON is about 650 conversations holding a 99 KB message each; 100,000 entries keep per-key
 * overhead (a few hundred bytes each) within a similar size.
 */
export const DEFAULT_MEMORY_BUDGET: Readonly<MemoryBudget> = Object.freeze({ maxBytes: 64 * 1024 * 1024, maxEntries: 100_000 });

type Env = Record<string, string | undefined>;

/** The memory store's budget from MEMORY_STORE_MAX_BYTES and MEMORY_STORE_MAX_ENTRIES; a TypeError names a bad one. */
export function readMemoryBudget(env: Env): MemoryBudget {
  return {
    maxBytes: integerEnv(env, 'MEMORY_STORE_MAX_BYTES', DEFAULT_MEMORY_BUDGET.maxBytes),
    maxEntries: integerEnv(env, 'MEMORY_STORE_MAX_ENTRIES', DEFAULT_MEMORY_BUDGET.maxEntries),
  };
}

/** Entries examined for expiry per write: expired entries go in time proportional to writes, never all at once. */
const SWEEP_PER_WRITE = 4;

const toText = (value: unknown): string => JSON.stringify(value) ?? 'null';

export class MemoryStore implements Store {
  readonly shared = false;
  readonly budget: Readonly<MemoryBudget>;
  readonly #entries = new Map<string, Entry>();
  readonly #watcher: Watcher;
  #sweeping: Iterator<[string, Entry]> | undefined;
  #bytes = 0;
  readonly #evicted;

  /** `watchMs`: the watch tick (STORE_WATCH_MS); here it only matters for expiries, which are not writes. */
  constructor(budget: Partial<MemoryBudget> = {}, watchMs = DEFAULT_WATCH_MS) {
    this.budget = { ...DEFAULT_MEMORY_BUDGET, ...budget };
    this.#watcher = new Watcher(async (keys) => keys.map((key) => this.#value(key)), watchMs);
    const { maxBytes, maxEntries } = this.budget;
    this.#evicted = createCountedWarning((_, count) =>
      `memory store over its budget (MEMORY_STORE_MAX_BYTES=${maxBytes}, MEMORY_STORE_MAX_ENTRIES=${maxEntries}): `
      + `evicted ${count} least recently used entr${count === 1 ? 'y' : 'ies'} since the last report; `
      + 'conversations and retried calls older than these are forgotten.');
  }

  /** Entries held, counting expired ones not yet swept. */
  get size(): number {
    return this.#entries.size;
  }

  /** Bytes held: the JSON text of every entry and its key. */
  get bytes(): number {
    return this.#bytes;
  }

  async get<T>(key: string): Promise<T | undefined> {
    return this.#value(key) as T | undefined;
  }

  async getMany(keys: string[]): Promise<unknown[]> {
    return keys.map((key) => this.#value(key));
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    this.#set(key, value, ttlMs);
    this.#watcher.written(key);
  }

  async claim(key: string, value: unknown, ttlMs: number): Promise<boolean> {
    if (this.#read(key)) return false;
    await this.set(key, value, ttlMs);
    return true;
  }

  async delete(key: string): Promise<void> {
    this.#remove(key);
    this.#watcher.written(key);
  }

  async append(key: string, values: unknown[], ttlMs: number): Promise<number> {
    const texts = values.map(toText);
    const current = this.#read(key);
    const list = current && Array.isArray(current.value) ? current.value : [];
    const bytes = (current && Array.isArray(current.value) ? current.bytes : key.length) + texts.reduce((n, t) => n + t.length, 0);
    list.push(...texts);
    this.#put(key, { value: list, bytes, expires: Date.now() + ttlMs });
    this.#watcher.written(key);
    return list.length;
  }

  /** What the Upstash `enter` script does, in one synchronous step (so as atomic as the script). */
  async enter({ once, turn, count, read = [] }: EnterRequest): Promise<Entered> {
    if (once) {
      const result = this.#value(once.result);
      if (result !== undefined) return { result, claimed: false };
      if (this.#read(once.claim)) return { claimed: false };
      this.#set(once.claim, 1, once.ttlMs);
    }
    const entered: Entered = { claimed: true };
    if (turn) Object.assign(entered, this.#takeTicket(turn));
    if (count) entered.count = this.#incr(count.key, count.ttlMs);
    entered.values = read.map((key) => this.#value(key));
    if (once) this.#watcher.written(once.claim);
    return entered;
  }

  /** What the Upstash `leave` script does, in one synchronous step. */
  async leave({ set = [], delete: gone = [], turn, count }: LeaveRequest): Promise<void> {
    for (const put of set) this.#set(put.key, put.value, put.ttlMs);
    for (const key of gone) this.#remove(key);
    if (turn) this.#endTurn(turn);
    if (count) this.#incr(count.key, count.ttlMs);
    for (const key of [...set.map((p) => p.key), ...gone, ...(turn ? [turn.done] : [])]) this.#watcher.written(key);
  }

  /** The `enter` script's ticket (scripts.ts ENTER): the queue's expiry is the deadline of its last ticket. */
  #takeTicket({ queue, done, turnMs }: TurnEntry): Pick<Entered, 'ticket' | 'done' | 'waitMs'> {
    const left = this.#msLeft(queue);
    const ticket = Number(this.#value(queue) ?? 0) + 1;
    if (ticket === 1) this.#remove(done);
    const highest = ticket === 1 ? 0 : Number(this.#value(done) ?? 0);
    const waitMs = highest < ticket - 1 && left > 0 ? Math.min(left, turnMs) : 0;
    this.#set(queue, ticket, waitMs + turnMs);
    return { ticket, done: highest, waitMs };
  }

  /** The `leave` script's end of a turn (scripts.ts LEAVE). */
  #endTurn({ queue, done, ticket }: TurnExit): void {
    const last = this.#value(queue) as number | undefined;
    if (last === undefined || ticket > last) return;
    const highest = Math.max(ticket, Number(this.#value(done) ?? 0));
    if (highest >= last) {
      this.#remove(queue);
      this.#remove(done);
    } else {
      this.#set(done, highest, this.#msLeft(queue));
    }
  }

  watch(keys: string[], ready: Ready, options: WaitOptions): Promise<unknown[] | undefined> {
    return this.#watcher.watch(keys, ready, options);
  }

  async range<T>(key: string, from: number): Promise<T[]> {
    const entry = this.#read(key);
    return entry && Array.isArray(entry.value) ? entry.value.slice(from).map((text) => JSON.parse(text) as T) : [];
  }

  /** A value's parsed copy; a list or absent key reads as undefined (as Redis MGET answers nil). */
  #value(key: string): unknown {
    const entry = this.#read(key);
    return entry === undefined || Array.isArray(entry.value) ? undefined : JSON.parse(entry.value);
  }

  #set(key: string, value: unknown, ttlMs: number): void {
    const text = toText(value);
    this.#put(key, { value: text, bytes: key.length + text.length, expires: Date.now() + ttlMs });
  }

  /** How long a live key has left (Redis PTTL); 0 when it is absent. */
  #msLeft(key: string): number {
    const entry = this.#read(key);
    return entry ? Math.max(1, entry.expires - Date.now()) : 0;
  }

  /** INCR then PEXPIRE, as the scripts do. */
  #incr(key: string, ttlMs: number): number {
    const next = Number(this.#value(key) ?? 0) + 1;
    this.#set(key, next, ttlMs);
    return next;
  }

  /** A live entry, moved to the most recently used end; expired ones are dropped. */
  #read(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.expires <= Date.now()) {
      this.#bytes -= entry.bytes;
      return undefined;
    }
    this.#entries.set(key, entry);
    return entry;
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  #put(key: string, entry: Entry): void {
    this.#remove(key);
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes;
    this.#sweep();
    this.#evict(key);
  }

  /** Least recently used first, never the entry just written (a value larger than the budget is still kept alone). */
  #evict(written: string): void {
    const { maxBytes, maxEntries } = this.budget;
    while ((this.#bytes > maxBytes || this.#entries.size > maxEntries) && this.#entries.size > 1) {
      const oldest = this.#entries.keys().next().value as string;
      if (oldest === written) return;
      const expired = this.#entries.get(oldest)!.expires <= Date.now();
      this.#remove(oldest);
      if (!expired) this.#evicted.note();
    }
  }

  /** Moves a cursor a few entries along the map (Map iterators survive deletes and see later inserts). */
  #sweep(): void {
    const now = Date.now();
    for (let i = 0; i < SWEEP_PER_WRITE; i++) {
      this.#sweeping ??= this.#entries.entries();
      const next = this.#sweeping.next();
      if (next.done) {
        this.#sweeping = undefined;
        return;
      }
      const [key, entry] = next.value;
      if (entry.expires <= now) this.#remove(key);
    }
  }
}
