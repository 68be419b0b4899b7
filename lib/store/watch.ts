/**
 * Waiting without a read per waiter: every waiter of one store on this instance is served by one batched
 * read (`getMany`, one MGET) every `everyMs`, and by a read of its own keys when this instance writes one of
 * them. A call waiting on a cancellation, a retry, an earlier turn or a stream's log therefore costs nothing
 * on its own; the instance costs at most one read per tick, and only while something waits.
 *
 * Why not a blocking wake-up: REST has none short of holding a SUBSCRIBE stream open per waiter (Upstash serves
 * one over SSE; the serverless-redis-http protocol has none), and a subscription would still need a read to
 * close the race with a write that lands before it is set up.
 */

import { integerEnv } from '../config.js';
import type { Ready, WaitOptions } from './types.js';

/** How often waiters read the store by default: a write from another instance is seen within this. */
export const DEFAULT_WATCH_MS = 4_500;
/** Shortest tick accepted: below it a deployment pays for reads that buy nothing (Upstash bills each). */
const MIN_WATCH_MS = 50;
/**
 * The longest key a waiter may watch. Every key agent-mcp builds is far shorter (lib/server/caller.ts bounds each
 * part), so only a deployment's own key can be longer; it is refused rather than re-read at every tick for as long
 * as its waiter lives, in the read every other waiter on the instance shares.
 */
export const MAX_WATCHED_KEY_CHARS = 4_096;
/**
 * The most key characters one batched read names; a tick with more is split into several reads, so a request to
 * the store stays well within what it accepts (Upstash: 10 MB a request) however many waiters an instance has.
 * At about 150 characters a key, that is some 7,000 waiters a read.
 */
export const MAX_READ_KEY_CHARS = 1024 * 1024;

type Env = Record<string, string | undefined>;

/** STORE_WATCH_MS: how often waiters read the shared store; a TypeError names a bad value. */
export function readWatchInterval(env: Env): number {
  return integerEnv(env, 'STORE_WATCH_MS', DEFAULT_WATCH_MS, MIN_WATCH_MS, `an integer of at least ${MIN_WATCH_MS} (milliseconds)`);
}

interface Waiter {
  keys: string[];
  ready: Ready;
  finish(values: unknown[] | undefined): void;
}

export class Watcher {
  readonly #read: (keys: string[]) => Promise<unknown[]>;
  readonly everyMs: number;
  readonly #waiters = new Set<Waiter>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(read: (keys: string[]) => Promise<unknown[]>, everyMs = DEFAULT_WATCH_MS) {
    this.#read = read;
    this.everyMs = everyMs;
  }

  /** Waiters now (tests and benches count them). */
  get size(): number {
    return this.#waiters.size;
  }

  watch(keys: string[], ready: Ready, { signal, timeoutMs }: WaitOptions): Promise<unknown[] | undefined> {
    const long = keys.find((key) => key.length > MAX_WATCHED_KEY_CHARS);
    if (long !== undefined) {
      return Promise.reject(new TypeError(`A watched store key holds at most ${MAX_WATCHED_KEY_CHARS} characters; this one has ${long.length}.`));
    }
    if (signal?.aborted || timeoutMs <= 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        keys,
        ready,
        finish: (values) => {
          if (!this.#waiters.delete(waiter)) return;
          clearTimeout(deadline);
          signal?.removeEventListener('abort', onAbort);
          if (this.#waiters.size === 0) this.#stop();
          resolve(values);
        },
      };
      const onAbort = () => waiter.finish(undefined);
      const deadline = setTimeout(onAbort, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
      this.#timer ??= setTimeout(() => void this.#tick(), this.everyMs);
    });
  }

  /** This instance wrote `key`: its waiters read their keys now rather than at the next tick. */
  written(key: string): void {
    const woken = [...this.#waiters].filter((w) => w.keys.includes(key));
    if (woken.length) void this.#check(woken);
  }

  async #tick(): Promise<void> {
    this.#timer = undefined;
    await this.#check([...this.#waiters]);
    // A waiter that came during the read has started the next tick already.
    if (this.#waiters.size) this.#timer ??= setTimeout(() => void this.#tick(), this.everyMs);
  }

  /** One read of every key the given waiters watch (split past MAX_READ_KEY_CHARS); each waiter whose values are ready finishes. */
  async #check(waiters: Waiter[]): Promise<void> {
    const parts = split([...new Set(waiters.flatMap((w) => w.keys))]);
    let values: Map<string, unknown>;
    try {
      const reads = await Promise.all(parts.map((keys) => this.#read(keys)));
      values = new Map(parts.flatMap((keys, p) => keys.map((key, i) => [key, reads[p]![i]] as const)));
    } catch {
      // A failed read is not a change: waiters keep waiting to the next tick (their caller's next read reports it).
      return;
    }
    for (const waiter of waiters) {
      const mine = waiter.keys.map((key) => values.get(key));
      if (this.#waiters.has(waiter) && waiter.ready(mine)) waiter.finish(mine);
    }
  }

  #stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

/** The keys in runs of at most MAX_READ_KEY_CHARS characters (one run, the usual case, when they fit). */
function split(keys: string[]): string[][] {
  const parts: string[][] = [[]];
  let chars = 0;
  for (const key of keys) {
    if (chars + key.length > MAX_READ_KEY_CHARS && parts.at(-1)!.length > 0) {
      parts.push([]);
      chars = 0;
    }
    parts.at(-1)!.push(key);
    chars += key.length;
  }
  return parts;
}
