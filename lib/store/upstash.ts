/**
 * The shared store: Upstash Redis over its REST API (`@upstash/redis`, imported on first use). Every instance
 * of a deployment sees the same data. Each operation is one HTTP round trip (a pipeline when it takes several
 * commands); every key expires.
 *
 * Keys: `<prefix><key>` holds the data, a JSON string (set) or a list of JSON strings (append). Every write also
 * bumps a counter at `<prefix>~written:<key>`, which is what waiters watch.
 *
 * Waiting is polling, by choice. REST has no blocking wake-up short of holding a SUBSCRIBE stream open per
 * waiter (Upstash serves one over SSE; the serverless-redis-http protocol has none), and a subscription would
 * still need a read to close the race with a write that lands before it is set up. So `waitForWrite` polls the
 * counter, after 50 ms at first and doubling to every 500 ms: a write from another instance is seen at most
 * ~0.5 s late, and a waiter costs at most two GETs a second. Its baseline is the counter this instance read
 * together with the key's data (get and range fetch both in one pipeline), so a write landing between a
 * caller's read and its wait still wakes it. Writes through this instance wake its own waiters at once.
 * One reading is remembered per key, so two calls on one instance reading and waiting on the same key at the
 * same moment may see the later reading and miss a write; the keys waited on here are either one call's own
 * (client answers, cancellations) or re-read every second by their callers (SSE logs, retries, session queues).
 */

import type { Redis } from '@upstash/redis';
import { StoreUnavailableError, type Store, type WaitOptions } from './types.js';
import { loadUpstashClient } from './upstash-client.js';
import { DEFAULT_PREFIX, type UpstashConfig } from './upstash-config.js';

const FIRST_POLL_MS = 50;
const MAX_POLL_MS = 500;
/** Bounds the per-instance memory of counters seen at reads (one entry per recently read key). */
const MAX_SEEN = 10_000;
/** Store operations matter more than limiter checks: a few quick retries (≈0.55 s) before failing. */
const STORE_RETRIES = 3;

type Version = string | null;
const UNKNOWN = Symbol('unknown');

export interface UpstashStoreOptions {
  /** Namespace of every key (default `agent-mcp:`). */
  prefix?: string;
  /** A ready client instead of one built from `config` (tests wrap the real client to count round trips). */
  client?: Redis;
}

export class UpstashStore implements Store {
  readonly shared = true;
  readonly #config: UpstashConfig;
  readonly #prefix: string;
  #client: Redis | undefined;
  #loading: Promise<Redis> | undefined;
  readonly #seen = new Map<string, Version>();
  readonly #waiters = new Map<string, Set<() => void>>();

  constructor(config: UpstashConfig, options: UpstashStoreOptions = {}) {
    this.#config = config;
    this.#prefix = options.prefix ?? DEFAULT_PREFIX;
    this.#client = options.client;
  }

  async get<T>(key: string): Promise<T | undefined> {
    try {
      const redis = this.#client ?? (await this.#load());
      const [value, version] = await redis.pipeline().get(this.#data(key)).get(this.#counter(key)).exec<[string | null, Version]>();
      this.#remember(key, version);
      return value === null ? undefined : (JSON.parse(value) as T);
    } catch (error) {
      throw new StoreUnavailableError(error);
    }
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    try {
      const redis = this.#client ?? (await this.#load());
      const px = toPx(ttlMs);
      await redis.pipeline()
        .set(this.#data(key), serialize(value), { px })
        .incr(this.#counter(key))
        .pexpire(this.#counter(key), px)
        .exec();
      this.#wake(key);
    } catch (error) {
      throw new StoreUnavailableError(error);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      const redis = this.#client ?? (await this.#load());
      await redis.del(this.#data(key));
    } catch (error) {
      throw new StoreUnavailableError(error);
    }
  }

  async append(key: string, value: unknown, ttlMs: number): Promise<number> {
    try {
      const redis = this.#client ?? (await this.#load());
      const px = toPx(ttlMs);
      const [length] = await redis.pipeline()
        .rpush(this.#data(key), serialize(value))
        .pexpire(this.#data(key), px)
        .incr(this.#counter(key))
        .pexpire(this.#counter(key), px)
        .exec<[number, unknown, unknown, unknown]>();
      this.#wake(key);
      return length;
    } catch (error) {
      throw new StoreUnavailableError(error);
    }
  }

  async range<T>(key: string, from: number): Promise<T[]> {
    try {
      const redis = this.#client ?? (await this.#load());
      const [items, version] = await redis.pipeline().lrange(this.#data(key), from, -1).get(this.#counter(key)).exec<[string[], Version]>();
      this.#remember(key, version);
      return items.map((item) => JSON.parse(item) as T);
    } catch (error) {
      throw new StoreUnavailableError(error);
    }
  }

  waitForWrite(key: string, { signal, timeoutMs }: WaitOptions): Promise<boolean> {
    if (signal?.aborted || timeoutMs <= 0) return Promise.resolve(false);
    const seen = this.#seen.has(key) ? this.#seen.get(key)! : UNKNOWN;
    this.#seen.delete(key);
    return new Promise((resolve) => {
      let finished = false;
      let delay = FIRST_POLL_MS;
      let pollTimer: ReturnType<typeof setTimeout> | undefined;
      const finish = (written: boolean) => {
        if (finished) return;
        finished = true;
        clearTimeout(deadline);
        clearTimeout(pollTimer);
        signal?.removeEventListener('abort', onAbort);
        this.#removeWaiter(key, onWrite);
        resolve(written);
      };
      const onWrite = () => finish(true);
      const onAbort = () => finish(false);
      const deadline = setTimeout(() => finish(false), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#addWaiter(key, onWrite);

      const poll = async (baseline: Version | typeof UNKNOWN) => {
        let next = baseline;
        try {
          const now = await this.#readCounter(key);
          if (baseline !== UNKNOWN && now !== baseline) return finish(true);
          next = now;
        } catch {
          // A failed poll is not a write; keep polling until the wait ends (the caller's next read reports the fault).
        }
        if (finished) return;
        pollTimer = setTimeout(() => void poll(next), delay);
        delay = Math.min(delay * 2, MAX_POLL_MS);
      };
      void poll(seen);
    });
  }

  #data(key: string): string {
    return this.#prefix + key;
  }

  #counter(key: string): string {
    return `${this.#prefix}~written:${key}`;
  }

  async #readCounter(key: string): Promise<Version> {
    const redis = this.#client ?? (await this.#load());
    return redis.get<string>(this.#counter(key));
  }

  #load(): Promise<Redis> {
    this.#loading ??= loadUpstashClient(this.#config, { retries: STORE_RETRIES }).then((client) => (this.#client = client));
    // A failed import or construction is retried by the next operation rather than cached.
    this.#loading.catch(() => (this.#loading = undefined));
    return this.#loading;
  }

  #remember(key: string, version: Version): void {
    this.#seen.delete(key);
    this.#seen.set(key, version);
    if (this.#seen.size > MAX_SEEN) this.#seen.delete(this.#seen.keys().next().value!);
  }

  #addWaiter(key: string, wake: () => void): void {
    let waiters = this.#waiters.get(key);
    if (!waiters) this.#waiters.set(key, (waiters = new Set()));
    waiters.add(wake);
  }

  #removeWaiter(key: string, wake: () => void): void {
    const waiters = this.#waiters.get(key);
    waiters?.delete(wake);
    if (waiters?.size === 0) this.#waiters.delete(key);
  }

  #wake(key: string): void {
    const waiters = this.#waiters.get(key);
    if (waiters) for (const wake of [...waiters]) wake();
  }
}

function serialize(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** Redis PX must be a positive integer. */
function toPx(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs));
}
