/**
 * The embedded store: one process's memory. It serves `npm start`, tests and single-instance deployments;
 * across serverless instances it is not shared, which start-up says.
 *
 * Values are kept as JSON text, as a shared store keeps them: a read is a copy, and the text's length is what
 * an entry costs. The store has a budget of entries and bytes (MEMORY_STORE_MAX_ENTRIES, MEMORY_STORE_MAX_BYTES);
 * over it, the least recently used entries go first, so a burst of callers cannot grow the process without
 * bound. Map order is the recency order: every read or write moves its key to the end.
 */

import { createCountedWarning } from '../warn.js';
import type { Store, WaitOptions } from './types.js';

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
  const read = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive integer, got "${raw}".`);
    return value;
  };
  return {
    maxBytes: read('MEMORY_STORE_MAX_BYTES', DEFAULT_MEMORY_BUDGET.maxBytes),
    maxEntries: read('MEMORY_STORE_MAX_ENTRIES', DEFAULT_MEMORY_BUDGET.maxEntries),
  };
}

/** Entries examined for expiry per write: expired entries go in time proportional to writes, never all at once. */
const SWEEP_PER_WRITE = 4;

const toText = (value: unknown): string => JSON.stringify(value) ?? 'null';

export class MemoryStore implements Store {
  readonly shared = false;
  readonly budget: Readonly<MemoryBudget>;
  readonly #entries = new Map<string, Entry>();
  readonly #waiters = new Map<string, Set<() => void>>();
  #sweeping: Iterator<[string, Entry]> | undefined;
  #bytes = 0;
  readonly #evicted;

  constructor(budget: Partial<MemoryBudget> = {}) {
    this.budget = { ...DEFAULT_MEMORY_BUDGET, ...budget };
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
    const entry = this.#read(key);
    return (entry === undefined || Array.isArray(entry.value) ? undefined : JSON.parse(entry.value)) as T | undefined;
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    const text = toText(value);
    this.#put(key, { value: text, bytes: key.length + text.length, expires: Date.now() + ttlMs });
  }

  async delete(key: string): Promise<void> {
    this.#remove(key);
  }

  async append(key: string, value: unknown, ttlMs: number): Promise<number> {
    const text = toText(value);
    const current = this.#read(key);
    const list = current && Array.isArray(current.value) ? current.value : [];
    const bytes = (current && Array.isArray(current.value) ? current.bytes : key.length) + text.length;
    list.push(text);
    this.#put(key, { value: list, bytes, expires: Date.now() + ttlMs });
    return list.length;
  }

  async range<T>(key: string, from: number): Promise<T[]> {
    const entry = this.#read(key);
    return entry && Array.isArray(entry.value) ? entry.value.slice(from).map((text) => JSON.parse(text) as T) : [];
  }

  waitForWrite(key: string, { signal, timeoutMs }: WaitOptions): Promise<boolean> {
    return new Promise((resolve) => {
      if (signal?.aborted || timeoutMs <= 0) return resolve(false);
      let waiters = this.#waiters.get(key);
      if (!waiters) this.#waiters.set(key, (waiters = new Set()));
      const finish = (written: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        waiters!.delete(onWrite);
        if (waiters!.size === 0 && this.#waiters.get(key) === waiters) this.#waiters.delete(key);
        resolve(written);
      };
      const onWrite = () => finish(true);
      const onAbort = () => finish(false);
      const timer = setTimeout(() => finish(false), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      waiters.add(onWrite);
    });
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
    const waiters = this.#waiters.get(key);
    if (waiters) for (const wake of [...waiters]) wake();
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
