/**
 * The one key-value interface for state that must outlive a request or cross instances:
 * replies to server-to-client requests, cancellations, SSE event logs, MRTR and (later) conversations.
 * Values are JSON. Every key expires.
 */

/**
 * The shared store did not answer (network, Redis down, an Upstash error). Callers tell their client the shared
 * store is unavailable, never an internal error; the next operation tries again, so service resumes by itself
 * when the store does.
 */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The shared store is unavailable.', { cause });
    this.name = 'StoreUnavailableError';
  }
}

export interface WaitOptions {
  signal?: AbortSignal;
  timeoutMs: number;
}

export interface Store {
  /** True when every instance of the deployment sees the same data (Upstash); false for memory. */
  readonly shared: boolean;
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Appends to a list, refreshing its expiry; returns the new length. */
  append(key: string, value: unknown, ttlMs: number): Promise<number>;
  /** The list's items from index `from` on (empty when the list does not exist). */
  range<T = unknown>(key: string, from: number): Promise<T[]>;
  /**
   * Waits until `key` is written (set or appended to), or the wait ends; resolves true when it was written.
   * A write that happened before the call is not seen: read first, then wait, then read again.
   */
  waitForWrite(key: string, options: WaitOptions): Promise<boolean>;
}

/** Reads and removes a value, waiting for it to be written when absent; undefined when the wait ends first. */
export async function takeValue<T>(store: Store, key: string, options: WaitOptions): Promise<T | undefined> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await store.get<T>(key);
    if (value !== undefined) {
      await store.delete(key);
      return value;
    }
    const left = deadline - Date.now();
    if (left <= 0 || options.signal?.aborted) return undefined;
    await store.waitForWrite(key, { signal: options.signal, timeoutMs: left });
  }
}
