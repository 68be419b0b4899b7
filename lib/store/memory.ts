/**
 * The embedded store: one process's memory. It serves `npm start`, tests and single-instance deployments;
 * across serverless instances it is not shared, which start-up says.
 *
 * Values are kept as JSON text, as a shared store keeps them: a read is a copy. What an entry costs is what it
 * holds in memory: its key and text (two bytes a character when the text needs them, as V8 keeps it) and a fixed
 * overhead for the entry itself. The store is shared fairly (ledger.ts): every write is charged to the budget of
 * the view it goes through (`withBudget`: a caller's own, the pool of callers without an identity, or security
 * records), within the whole (MEMORY_STORE_MAX_BYTES, MEMORY_STORE_MAX_ENTRIES), so a burst of callers can grow
 * neither the process without bound nor into another caller's state.
 */

import { integerEnv } from '../config.js';
import { Ledger, type Entry } from './ledger.js';
import { Tallies } from './tallies.js';
import { storedBytes, type CallerClass, type Entered, type EnterRequest, type LeaveRequest, type Ready, type Reservation, type Store, type StoreBudget, type Tally, type TurnEntry, type TurnExit, type WaitOptions } from './types.js';
import { DEFAULT_WATCH_MS, Watcher } from './watch.js';

export interface MemoryBudget {
  /** Most bytes held (keys, text and per-entry overhead). */
  maxBytes: number;
  /** Most entries held. */
  maxEntries: number;
  /** Most bytes one caller with an identity (a principal, else a server-issued session) holds. */
  maxBytesPerCaller: number;
  /** Most bytes security records (settled payments and the like) hold together. */
  maxBytesSecurity: number;
}

/**
 * 64 MiB is about 650 conversations holding a 99 KB message each; 100,000 entries keep per-key overhead within a
 * similar size. One caller may hold a quarter of the whole (a conversation's history must fit: 40 messages of
 * 100,000 characters and their replies), and security records half of it (each share is a fraction of
 * MEMORY_STORE_MAX_BYTES unless set).
 */
export const DEFAULT_MEMORY_BUDGET: Readonly<MemoryBudget> = Object.freeze(budgetWithin(64 * 1024 * 1024, 100_000));

function budgetWithin(maxBytes: number, maxEntries: number): MemoryBudget {
  return { maxBytes, maxEntries, maxBytesPerCaller: Math.floor(maxBytes / 4), maxBytesSecurity: Math.floor(maxBytes / 2) };
}

/** Bytes an entry costs beyond its key and text: the entry object and its places in the store's two maps. */
export const ENTRY_OVERHEAD_BYTES = 200;
/** Bytes each item of a list costs beyond its text: its slot and string header. */
const ITEM_OVERHEAD_BYTES = 24;

type Env = Record<string, string | undefined>;

/** The memory store's budget from the MEMORY_STORE_MAX_* variables; a TypeError names a bad one. */
export function readMemoryBudget(env: Env): MemoryBudget {
  const maxBytes = integerEnv(env, 'MEMORY_STORE_MAX_BYTES', DEFAULT_MEMORY_BUDGET.maxBytes);
  const derived = budgetWithin(maxBytes, integerEnv(env, 'MEMORY_STORE_MAX_ENTRIES', DEFAULT_MEMORY_BUDGET.maxEntries));
  const share = (name: string, fallback: number) => {
    const value = integerEnv(env, name, fallback);
    if (value > maxBytes) throw new TypeError(`${name} must be at most MEMORY_STORE_MAX_BYTES (${maxBytes}), got "${env[name]}".`);
    return value;
  };
  return {
    ...derived,
    maxBytesPerCaller: share('MEMORY_STORE_MAX_BYTES_PER_CALLER', derived.maxBytesPerCaller),
    maxBytesSecurity: share('MEMORY_STORE_MAX_BYTES_SECURITY', derived.maxBytesSecurity),
  };
}

const costOf = storedBytes;

const toText = (value: unknown): string => JSON.stringify(value) ?? 'null';

/** A value's parsed copy; a list or absent entry reads as undefined (as Redis MGET answers nil). */
const valueOf = (entry: Entry | undefined): unknown =>
  (entry === undefined || Array.isArray(entry.value) ? undefined : JSON.parse(entry.value));

interface Shared {
  ledger: Ledger;
  watcher: Watcher;
  tallies: Tallies;
}

/** The store seen through one budget: writes are charged to it; everything else is the same store. */
class MemoryView implements Store {
  readonly shared = false;
  readonly budgeted = true;
  readonly #data: Shared;
  readonly #budget: StoreBudget;

  constructor(data: Shared, budget: StoreBudget) {
    this.#data = data;
    this.#budget = budget;
  }

  withBudget(budget: StoreBudget): Store {
    return new MemoryView(this.#data, budget);
  }

  async get<T>(key: string): Promise<T | undefined> {
    return valueOf(this.#data.ledger.read(key)) as T | undefined;
  }

  async getMany(keys: string[]): Promise<unknown[]> {
    return keys.map((key) => valueOf(this.#data.ledger.read(key)));
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    this.#set(key, value, ttlMs);
    this.#data.watcher.written(key);
  }

  async claim(key: string, value: unknown, ttlMs: number): Promise<boolean> {
    if (this.#data.ledger.read(key)) return false;
    await this.set(key, value, ttlMs);
    return true;
  }

  async delete(key: string): Promise<void> {
    this.#data.ledger.remove(key);
    this.#data.watcher.written(key);
  }

  async append(key: string, values: unknown[], ttlMs: number): Promise<number> {
    const texts = values.map(toText);
    const current = this.#data.ledger.read(key);
    const list = current && Array.isArray(current.value) ? current.value : [];
    const base = list.length ? current!.bytes : ENTRY_OVERHEAD_BYTES + costOf(key);
    const bytes = base + texts.reduce((n, text) => n + costOf(text) + ITEM_OVERHEAD_BYTES, 0);
    // The list grows only once the ledger has taken it: a refused append leaves it as it was.
    this.#data.ledger.put(key, list, bytes, Date.now() + ttlMs, this.#budget);
    list.push(...texts);
    this.#data.watcher.written(key);
    return list.length;
  }

  /**
   * What the Upstash `enter` script does, in one synchronous step (so as atomic as the script); and first, what it
   * does not: the room the call's writes will need is held, or the call is refused before anything changes.
   */
  async enter({ once, turn, count, read = [], reserve }: EnterRequest): Promise<Entered> {
    const { ledger, watcher } = this.#data;
    if (reserve) this.#reserve(reserve);
    const letGo = () => reserve && ledger.remove(reserve.key);
    try {
      if (once) {
        const result = valueOf(ledger.read(once.result));
        if (result !== undefined) {
          letGo();
          return { result, claimed: false };
        }
        if (ledger.read(once.claim)) {
          letGo();
          return { claimed: false };
        }
        this.#set(once.claim, 1, once.ttlMs);
      }
      const entered: Entered = { claimed: true };
      if (turn) Object.assign(entered, this.#takeTicket(turn));
      if (count) entered.count = this.#incr(count.key, count.ttlMs);
      entered.values = read.map((key) => valueOf(ledger.read(key)));
      if (once) watcher.written(once.claim);
      return entered;
    } catch (error) {
      letGo();
      throw error;
    }
  }

  /**
   * Holds a reservation's room; StoreFullError (before anything changes) when there is none, or the value it grows
   * could never fit. It holds no more than its caller may still add: a hold that pushed the caller over its own
   * budget would evict the caller's own state, the very history the call is about to read among it.
   */
  #reserve({ key, bytes, ttlMs, grows }: Reservation): void {
    const { ledger } = this.#data;
    if (grows) ledger.checkSize((ledger.read(grows.key)?.bytes ?? ENTRY_OVERHEAD_BYTES + costOf(grows.key)) + grows.bytes, this.#budget);
    const held = Math.min(ENTRY_OVERHEAD_BYTES + costOf(key) + bytes, ledger.roomOf(this.#budget));
    if (held > ENTRY_OVERHEAD_BYTES + costOf(key)) ledger.put(key, 'null', held, Date.now() + ttlMs, this.#budget, grows?.key);
  }

  /** What the Upstash `leave` script does, in one synchronous step. */
  async leave({ set = [], delete: gone = [], turn, count }: LeaveRequest): Promise<void> {
    const { ledger, watcher } = this.#data;
    // What goes goes first: a reservation among it frees the room the writes were promised. A write the budget
    // refuses (StoreFullError) still lets the call go: its claims and its turn end, so nothing waits on a call that
    // has left, and the refusal is thrown once they have.
    for (const key of gone) ledger.remove(key);
    let refused: unknown;
    for (const put of set) {
      try {
        this.#set(put.key, put.value, put.ttlMs);
      } catch (error) {
        refused = error;
        break;
      }
    }
    if (turn) this.#endTurn(turn);
    if (count) this.#incr(count.key, count.ttlMs);
    for (const put of set) watcher.written(put.key);
    for (const key of gone) watcher.written(key);
    if (turn) watcher.written(turn.done);
    if (refused !== undefined) throw refused;
  }

  /** The `enter` script's ticket (scripts.ts ENTER): the queue's expiry is the deadline of its last ticket. */
  #takeTicket({ queue, done, turnMs }: TurnEntry): Pick<Entered, 'ticket' | 'done' | 'waitMs'> {
    const { ledger } = this.#data;
    const left = this.#msLeft(queue);
    const ticket = Number(valueOf(ledger.read(queue)) ?? 0) + 1;
    if (ticket === 1) ledger.remove(done);
    const highest = ticket === 1 ? 0 : Number(valueOf(ledger.read(done)) ?? 0);
    const waitMs = highest < ticket - 1 && left > 0 ? Math.min(left, turnMs) : 0;
    this.#set(queue, ticket, waitMs + turnMs);
    return { ticket, done: highest, waitMs };
  }

  /** The `leave` script's end of a turn (scripts.ts LEAVE). */
  #endTurn({ queue, done, ticket }: TurnExit): void {
    const { ledger } = this.#data;
    const last = valueOf(ledger.read(queue)) as number | undefined;
    if (last === undefined || ticket > last) return;
    const highest = Math.max(ticket, Number(valueOf(ledger.read(done)) ?? 0));
    if (highest >= last) {
      ledger.remove(queue);
      ledger.remove(done);
    } else {
      this.#set(done, highest, this.#msLeft(queue));
    }
  }

  async tally(tallies: Tally[]): Promise<void> {
    this.#data.tallies.add(tallies);
  }

  async readTallies(keys: string[]): Promise<Array<Record<string, number>>> {
    return this.#data.tallies.read(keys);
  }

  watch(keys: string[], ready: Ready, options: WaitOptions): Promise<unknown[] | undefined> {
    return this.#data.watcher.watch(keys, ready, options);
  }

  async range<T>(key: string, from: number): Promise<T[]> {
    const entry = this.#data.ledger.read(key);
    return entry && Array.isArray(entry.value) ? entry.value.slice(from).map((text) => JSON.parse(text) as T) : [];
  }

  #set(key: string, value: unknown, ttlMs: number): void {
    const text = toText(value);
    this.#data.ledger.put(key, text, ENTRY_OVERHEAD_BYTES + costOf(key) + costOf(text), Date.now() + ttlMs, this.#budget);
  }

  /** How long a live key has left (Redis PTTL); 0 when it is absent. */
  #msLeft(key: string): number {
    const entry = this.#data.ledger.read(key);
    return entry ? Math.max(1, entry.expires - Date.now()) : 0;
  }

  /** INCR then PEXPIRE, as the scripts do. */
  #incr(key: string, ttlMs: number): number {
    const next = Number(valueOf(this.#data.ledger.read(key)) ?? 0) + 1;
    this.#set(key, next, ttlMs);
    return next;
  }
}

/** A memory store; as a Store it writes to the pool of callers without an identity until `withBudget` says whose. */
export class MemoryStore extends MemoryView {
  readonly budget: Readonly<MemoryBudget>;
  readonly #ledger: Ledger;

  /** `watchMs`: the watch tick (STORE_WATCH_MS); here it only matters for expiries, which are not writes. */
  constructor(budget: Partial<MemoryBudget> = {}, watchMs = DEFAULT_WATCH_MS) {
    const whole = { maxBytes: budget.maxBytes ?? DEFAULT_MEMORY_BUDGET.maxBytes, maxEntries: budget.maxEntries ?? DEFAULT_MEMORY_BUDGET.maxEntries };
    const resolved = { ...budgetWithin(whole.maxBytes, whole.maxEntries), ...budget };
    const ledger = new Ledger(resolved);
    super({ ledger, watcher: new Watcher(async (keys) => keys.map((key) => valueOf(ledger.read(key))), watchMs), tallies: new Tallies() }, 'anonymous');
    this.budget = resolved;
    this.#ledger = ledger;
  }

  /** Entries held, counting expired ones not yet swept. */
  get size(): number {
    return this.#ledger.size;
  }

  /** Bytes held: what every entry costs. */
  get bytes(): number {
    return this.#ledger.bytes;
  }

  /** Bytes charged to one budget. */
  bytesOf(budget: StoreBudget): number {
    return this.#ledger.bytesOf(budget);
  }

  /** Bytes one class of callers holds together. */
  bytesOfClass(name: CallerClass): number {
    return this.#ledger.bytesOfClass(name);
  }

  /** What each class of callers is sure of (ledger.ts classShareOf). */
  get classShare(): Readonly<{ bytes: number; entries: number }> {
    return this.#ledger.share;
  }
}
