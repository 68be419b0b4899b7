/**
 * The embedded store: one process's memory. It serves `npm start`, tests and single-instance deployments;
 * across serverless instances it is not shared, which start-up says.
 */

import type { Store, WaitOptions } from './types.js';

interface Entry {
  value: unknown;
  expires: number;
}

/** Entries examined for expiry per write: expired entries go in time proportional to writes, never all at once. */
const SWEEP_PER_WRITE = 4;

export class MemoryStore implements Store {
  readonly shared = false;
  readonly #entries = new Map<string, Entry>();
  readonly #waiters = new Map<string, Set<() => void>>();
  #sweeping: Iterator<[string, Entry]> | undefined;

  /** Entries held, counting expired ones not yet swept. */
  get size(): number {
    return this.#entries.size;
  }

  /** A copy, as a shared store's read would be: a caller changing it must not change the store. */
  async get<T>(key: string): Promise<T | undefined> {
    const value = this.#read(key);
    return (value === undefined ? undefined : structuredClone(value)) as T | undefined;
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    this.#entries.set(key, { value: structuredClone(value), expires: Date.now() + ttlMs });
    this.#written(key);
  }

  async delete(key: string): Promise<void> {
    this.#entries.delete(key);
  }

  async append(key: string, value: unknown, ttlMs: number): Promise<number> {
    const current = this.#read(key);
    const list = Array.isArray(current) ? current : [];
    list.push(structuredClone(value));
    this.#entries.set(key, { value: list, expires: Date.now() + ttlMs });
    this.#written(key);
    return list.length;
  }

  async range<T>(key: string, from: number): Promise<T[]> {
    const current = this.#read(key);
    return Array.isArray(current) ? (structuredClone(current.slice(from)) as T[]) : [];
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

  #read(key: string): unknown {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  #written(key: string): void {
    this.#sweep();
    const waiters = this.#waiters.get(key);
    if (waiters) for (const wake of [...waiters]) wake();
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
      if (entry.expires <= now) this.#entries.delete(key);
    }
  }
}
