/**
 * The shared store: Upstash Redis over its REST API (`@upstash/redis`, imported on first use). Every instance
 * of a deployment sees the same data. Each operation is one HTTP round trip and as few billed commands as it
 * can be (docs/architecture.md "What a call costs in store commands"): a value is one SET or GET, a list append
 * one RPUSH of every value plus its PEXPIRE, `enter` and `leave` one EVALSHA each (scripts.ts). Every key expires.
 *
 * Keys: `<prefix><key>`, a JSON string (set) or a list of JSON strings (append); nothing else. Waiting is the
 * instance-wide watcher's (watch.ts): one MGET per tick for every waiter, and an immediate read when this
 * instance writes a watched key.
 */

import type { Redis } from '@upstash/redis';
import { integerEnv } from '../config.js';
import { StoreUnavailableError, type Entered, type EnterRequest, type LeaveRequest, type Ready, type Store, type StoreBudget, type Tally, type WaitOptions } from './types.js';
import { loadUpstashClient } from './upstash-client.js';
import { DEFAULT_PREFIX, type UpstashConfig } from './upstash-config.js';
import { ENTER, LEAVE } from './scripts.js';
import { READ_TALLIES, TALLY } from './tally-scripts.js';
import { DEFAULT_WATCH_MS, Watcher } from './watch.js';

/** Store operations matter more than limiter checks: a few quick retries (≈0.55 s) before failing. */
const STORE_RETRIES = 3;
/**
 * The longest one store operation waits by default (STORE_TIMEOUT_MS), its retries included: a stalled store
 * then answers StoreUnavailableError (503, or a chat call's isError) instead of holding every call.
 */
export const DEFAULT_STORE_TIMEOUT_MS = 2_500;

type Env = Record<string, string | undefined>;

/** STORE_TIMEOUT_MS: how long a shared-store operation may take; a TypeError names a bad value. */
export function readStoreTimeout(env: Env): number {
  return integerEnv(env, 'STORE_TIMEOUT_MS', DEFAULT_STORE_TIMEOUT_MS, 1, 'a positive integer of milliseconds');
}

type Script = ReturnType<Redis['createScript']>;

export interface UpstashStoreOptions {
  /** Namespace of every key (default `agent-mcp:`). */
  prefix?: string;
  /** A ready client instead of one built from `config` (tests wrap the real client to count round trips). */
  client?: Redis;
  /** The watch tick (STORE_WATCH_MS). */
  watchMs?: number;
  /** How long one operation may take, retries included (STORE_TIMEOUT_MS). */
  timeoutMs?: number;
}

export class UpstashStore implements Store {
  readonly shared = true;
  /** No budgets, so no reservations: `enter` ignores one (docs/security.md "The store is shared fairly"). */
  readonly budgeted = false;
  readonly #config: UpstashConfig;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  #client: Redis | undefined;
  #loading: Promise<Redis> | undefined;
  #scripts: { enter: Script; leave: Script; tally: Script; readTallies: Script } | undefined;
  readonly #watcher: Watcher;

  constructor(config: UpstashConfig, options: UpstashStoreOptions = {}) {
    this.#config = config;
    this.#prefix = options.prefix ?? DEFAULT_PREFIX;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    this.#client = options.client;
    this.#watcher = new Watcher((keys) => this.getMany(keys), options.watchMs ?? DEFAULT_WATCH_MS);
  }

  async get<T>(key: string): Promise<T | undefined> {
    const value = await this.#run((redis) => redis.get<string>(this.#data(key)));
    return parse(value) as T | undefined;
  }

  async getMany(keys: string[]): Promise<unknown[]> {
    if (keys.length === 0) return [];
    // MGET answers nil for a key holding a list, as the memory store's getMany answers undefined.
    const values = await this.#run((redis) => redis.mget<(string | null)[]>(...keys.map((key) => this.#data(key))));
    return values.map(parse);
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    await this.#run((redis) => redis.set(this.#data(key), serialize(value), { px: toPx(ttlMs) }));
    this.#watcher.written(key);
  }

  async claim(key: string, value: unknown, ttlMs: number): Promise<boolean> {
    const set = await this.#run((redis) => redis.set(this.#data(key), serialize(value), { px: toPx(ttlMs), nx: true }));
    if (set !== null) this.#watcher.written(key);
    return set !== null;
  }

  async delete(key: string): Promise<void> {
    await this.#run((redis) => redis.del(this.#data(key)));
    this.#watcher.written(key);
  }

  async append(key: string, values: unknown[], ttlMs: number): Promise<number> {
    const [length] = await this.#run((redis) => redis.pipeline()
      .rpush(this.#data(key), ...values.map(serialize))
      .pexpire(this.#data(key), toPx(ttlMs))
      .exec<[number, unknown]>());
    this.#watcher.written(key);
    return length;
  }

  async range<T>(key: string, from: number): Promise<T[]> {
    const items = await this.#run((redis) => redis.lrange(this.#data(key), from, -1));
    return items.map((item) => JSON.parse(item) as T);
  }

  async enter({ once, turn, count, read = [] }: EnterRequest): Promise<Entered> {
    const keys = [
      ...(once ? [once.result, once.claim] : []),
      ...(turn ? [turn.queue, turn.done] : []),
      ...(count ? [count.key] : []),
      ...read,
    ].map((key) => this.#data(key));
    const args = [once ? String(toPx(once.ttlMs)) : '', turn ? String(toPx(turn.turnMs)) : '', count ? String(toPx(count.ttlMs)) : ''];
    const reply = await this.#run(async (redis) => (await this.#script(redis)).enter.exec(keys, args)) as unknown[];
    if (reply[0] === 'result') return { result: parse(reply[1] as string), claimed: false };
    if (reply[0] === 'taken') return { claimed: false };
    if (once) this.#watcher.written(once.claim);
    return {
      claimed: true,
      ...(turn ? { ticket: Number(reply[1]), done: Number(reply[2] ?? 0), waitMs: Number(reply[3] ?? 0) } : {}),
      ...(count ? { count: Number(reply[4]) } : {}),
      values: read.map((_, i) => parse(reply[5 + i] as string | null | undefined)),
    };
  }

  async leave({ set = [], delete: gone = [], turn, count }: LeaveRequest): Promise<void> {
    const keys = [...set.map((p) => p.key), ...gone, ...(turn ? [turn.queue, turn.done] : []), ...(count ? [count.key] : [])];
    const args = [String(set.length), String(gone.length), turn ? String(turn.ticket) : '', count ? String(toPx(count.ttlMs)) : '',
      ...set.flatMap((p) => [serialize(p.value), String(toPx(p.ttlMs))])];
    await this.#run(async (redis) => (await this.#script(redis)).leave.exec(keys.map((key) => this.#data(key)), args));
    for (const key of [...set.map((p) => p.key), ...gone, ...(turn ? [turn.done] : [])]) this.#watcher.written(key);
  }

  async tally(tallies: Tally[]): Promise<void> {
    if (tallies.length === 0) return;
    const keys: string[] = [];
    const args: string[] = [String(tallies.length)];
    for (const { key, ttlMs, add, ranked = [] } of tallies) {
      keys.push(this.#data(key));
      const fields = Object.entries(add);
      args.push(String(toPx(ttlMs)), String(fields.length), ...fields.flatMap(([field, n]) => [field, String(n)]), String(ranked.length));
      for (const { set, member, weight, bound, add: own } of ranked) {
        keys.push(this.#data(`${key}:${set}`));
        const suffixes = Object.entries(own);
        args.push(set, member, String(weight), String(bound), String(suffixes.length), ...suffixes.flatMap(([suffix, n]) => [suffix, String(n)]));
      }
    }
    await this.#run(async (redis) => (await this.#script(redis)).tally.exec(keys, args));
  }

  async readTallies(keys: string[]): Promise<Array<Record<string, number>>> {
    if (keys.length === 0) return [];
    const reply = await this.#run(async (redis) => (await this.#script(redis)).readTallies.exec(keys.map((key) => this.#data(key)), [])) as unknown[][];
    return reply.map((pairs) => {
      const fields: Record<string, number> = {};
      for (let i = 0; i + 1 < pairs.length; i += 2) fields[String(pairs[i])] = Number(pairs[i + 1]);
      return fields;
    });
  }

  watch(keys: string[], ready: Ready, options: WaitOptions): Promise<unknown[] | undefined> {
    return this.#watcher.watch(keys, ready, options);
  }

  /**
   * Budgets are the memory store's: on Upstash one database holds every key and its eviction policy is the
   * database's (disabled by default: a full database refuses writes, which reach callers as StoreUnavailableError;
   * docs/security.md "The store is shared fairly" says where the two differ). Nothing to charge, and no cost.
   */
  withBudget(_budget: StoreBudget): Store {
    return this;
  }

  #data(key: string): string {
    return this.#prefix + key;
  }

  async #script(redis: Redis) {
    // `exec` sends EVALSHA and, when Redis does not have the script yet, EVAL once.
    return (this.#scripts ??= {
      enter: redis.createScript(ENTER), leave: redis.createScript(LEAVE), tally: redis.createScript(TALLY), readTallies: redis.createScript(READ_TALLIES),
    });
  }

  async #run<T>(operation: (redis: Redis) => Promise<T>): Promise<T> {
    try {
      return await operation(this.#client ?? (await this.#load()));
    } catch (error) {
      throw new StoreUnavailableError(error);
    }
  }

  #load(): Promise<Redis> {
    this.#loading ??= loadUpstashClient(this.#config, { retries: STORE_RETRIES, requestTimeoutMs: this.#timeoutMs }).then((client) => (this.#client = client));
    // A failed import or construction is retried by the next operation rather than cached.
    this.#loading.catch(() => (this.#loading = undefined));
    return this.#loading;
  }
}

function serialize(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

function parse(value: string | null | undefined): unknown {
  return value === null || value === undefined ? undefined : JSON.parse(value);
}

/** Redis PX must be a positive integer. */
function toPx(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs));
}
