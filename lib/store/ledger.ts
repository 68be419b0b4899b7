/**
 * The memory store's accounting (docs/architecture.md rule 12; docs/security.md "The store is shared fairly"). Every entry
 * belongs to one share, the budget its last write was charged to (types.ts StoreBudget):
 * - each caller with an identity (a principal, else a server-issued session) holds at most `maxBytesPerCaller`;
 *   over it, that caller's own least recently used entries go;
 * - callers without an identity share one pool, which holds whatever room callers with one leave: its writes only
 *   ever push out its own entries, and when nothing of its own is left to give, the write is refused;
 * - security records hold at most `maxBytesSecurity` together and are never evicted: over it, the write is refused.
 * When the store as a whole is over `maxBytes` or `maxEntries`, the room comes from the pool first, then from the
 * caller holding the most (its least recently used entry): no caller loses state to make room while another
 * holds more than it does. A refusal throws StoreFullError before anything changes.
 */

import { createCountedWarning } from '../warn.js';
import { Heaviest, type Weighed } from './heaviest.js';
import { StoreFullError, type StoreBudget } from './types.js';

export interface LedgerLimits {
  maxBytes: number;
  maxEntries: number;
  maxBytesPerCaller: number;
  maxBytesSecurity: number;
}

export interface Entry {
  /** JSON text of a value, or of each item of a list. */
  value: string | string[];
  /** What the entry costs: its key, its text and a fixed overhead (memory.ts). */
  bytes: number;
  expires: number;
  share: Share;
}

type Kind = 'caller' | 'anonymous' | 'security';

class Share implements Weighed {
  bytes = 0;
  place = -1;
  /** The share's entries, least recently used first (Map order; a read or write moves its key to the end). */
  readonly entries = new Map<string, Entry>();
  constructor(readonly kind: Kind, readonly owner = '') {}
}

/** Entries examined for expiry per write: expired entries go in time proportional to writes, never all at once. */
const SWEEP_PER_WRITE = 4;

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

export class Ledger {
  readonly limits: Readonly<LedgerLimits>;
  readonly #entries = new Map<string, Entry>();
  readonly #callers = new Map<string, Share>();
  readonly #heaviest = new Heaviest<Share>();
  readonly #anonymous = new Share('anonymous');
  readonly #security = new Share('security');
  #bytes = 0;
  #sweeping: Iterator<[string, Entry]> | undefined;
  readonly #evictedOwn;
  readonly #evictedForRoom;
  readonly #refused;

  constructor(limits: LedgerLimits) {
    this.limits = limits;
    const { maxBytes, maxEntries, maxBytesPerCaller } = limits;
    this.#evictedOwn = createCountedWarning((_, count) =>
      `memory store: callers over MEMORY_STORE_MAX_BYTES_PER_CALLER=${maxBytesPerCaller} lost ${plural(count, 'entry', 'entries')} `
      + 'of their own (least recently used first) since the last report.');
    this.#evictedForRoom = createCountedWarning((_, count) =>
      `memory store over its budget (MEMORY_STORE_MAX_BYTES=${maxBytes}, MEMORY_STORE_MAX_ENTRIES=${maxEntries}): evicted `
      + `${plural(count, 'least recently used entry', 'least recently used entries')} since the last report, from callers without `
      + 'an identity first, then from the caller holding the most; conversations and retried calls older than these are forgotten.');
    this.#refused = createCountedWarning((reason, count) =>
      `memory store refused ${plural(count, 'write', 'writes')} since the last report (latest: ${reason}).`);
  }

  /** Entries held, counting expired ones not yet swept. */
  get size(): number {
    return this.#entries.size;
  }

  /** What every entry held costs. */
  get bytes(): number {
    return this.#bytes;
  }

  /** What one budget's entries cost (tests and the docs' examples read it). */
  bytesOf(budget: StoreBudget): number {
    return this.#existing(budget)?.bytes ?? 0;
  }

  /** A live entry, now the most recently used of its share; an expired one is dropped. */
  read(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= Date.now()) {
      this.#drop(key, entry);
      return undefined;
    }
    entry.share.entries.delete(key);
    entry.share.entries.set(key, entry);
    return entry;
  }

  remove(key: string): void {
    const entry = this.#entries.get(key);
    if (entry) this.#drop(key, entry);
  }

  /** Keeps `value` under `key`, charged to `budget`, making room as the rules above say; StoreFullError when it may not. */
  put(key: string, value: string | string[], bytes: number, expires: number, budget: StoreBudget): void {
    const old = this.#entries.get(key);
    this.#refuseUnlessRoom(bytes, budget, old);
    if (old) this.#drop(key, old);
    const share = this.#shareFor(budget);
    const entry: Entry = { value, bytes, expires, share };
    this.#entries.set(key, entry);
    share.entries.set(key, entry);
    share.bytes += bytes;
    this.#bytes += bytes;
    this.#weigh(share);
    this.#sweep();
    this.#makeRoom(key, share);
  }

  #refuseUnlessRoom(bytes: number, budget: StoreBudget, old: Entry | undefined): void {
    const { maxBytes, maxEntries, maxBytesPerCaller, maxBytesSecurity } = this.limits;
    const kind = kindOf(budget);
    const replaced = (share: Share) => (old?.share === share ? old.bytes : 0);
    if (kind === 'security') {
      this.#dropExpired(this.#security);
      if (this.#security.bytes - replaced(this.#security) + bytes > maxBytesSecurity) {
        this.#refuse(`security records would hold more than MEMORY_STORE_MAX_BYTES_SECURITY=${maxBytesSecurity} bytes`);
      }
    }
    if (kind === 'caller' && bytes > maxBytesPerCaller) {
      this.#refuse(`a value of ${bytes} bytes is more than one caller may hold (MEMORY_STORE_MAX_BYTES_PER_CALLER=${maxBytesPerCaller})`, true);
    }
    if (bytes > maxBytes) this.#refuse(`a value of ${bytes} bytes is more than the store holds (MEMORY_STORE_MAX_BYTES=${maxBytes})`, true);
    const overBytes = this.#bytes - (old?.bytes ?? 0) + bytes - maxBytes;
    const overEntries = this.#entries.size - (old ? 1 : 0) + 1 - maxEntries;
    if (overBytes <= 0 && overEntries <= 0) return;
    // What may give way: the pool, for anyone; callers with an identity, for them and for security records.
    this.#dropExpired(this.#anonymous);
    const pool = this.#anonymous;
    let freeBytes = pool.bytes - replaced(pool);
    let freeEntries = pool.entries.size - (old?.share === pool ? 1 : 0);
    if (kind !== 'anonymous') {
      const callersBytes = this.#bytes - pool.bytes - this.#security.bytes;
      const callersEntries = this.#entries.size - pool.entries.size - this.#security.entries.size;
      const oldOfCaller = old?.share.kind === 'caller';
      freeBytes += callersBytes - (oldOfCaller ? old.bytes : 0);
      freeEntries += callersEntries - (oldOfCaller ? 1 : 0);
    }
    if (overBytes > freeBytes || overEntries > freeEntries) {
      this.#refuse(kind === 'anonymous'
        ? 'the store is full (MEMORY_STORE_MAX_BYTES, MEMORY_STORE_MAX_ENTRIES) with state of callers with an identity, which callers without one never push out'
        : 'the store is full (MEMORY_STORE_MAX_BYTES, MEMORY_STORE_MAX_ENTRIES) with security records, which are never evicted');
    }
  }

  #refuse(reason: string, tooLarge = false): never {
    this.#refused.note(reason);
    throw new StoreFullError(reason, tooLarge);
  }

  /** Room for the entry just written under `key`: never by evicting it, nor a security record. */
  #makeRoom(key: string, share: Share): void {
    const { maxBytes, maxEntries, maxBytesPerCaller } = this.limits;
    while (share.kind === 'caller' && share.bytes > maxBytesPerCaller && this.#evictOldest(share, key, this.#evictedOwn));
    while (this.#bytes > maxBytes || this.#entries.size > maxEntries) {
      const giver = this.#giver(share, key);
      if (!giver || !this.#evictOldest(giver, key, this.#evictedForRoom)) return;
    }
  }

  /** The pool, when it has anything but the entry just written; else (for a caller or a security record) the heaviest caller. */
  #giver(writer: Share, key: string): Share | undefined {
    const pool = this.#anonymous;
    if (pool.entries.size > (writer === pool ? 1 : 0)) return pool;
    if (writer === pool) return undefined;
    const top = this.#heaviest.top();
    return top === writer && writer.entries.size === 1 && writer.entries.has(key) ? this.#heaviest.top(writer) : top;
  }

  /** Drops the share's least recently used entry other than `key`; false when it has none. */
  #evictOldest(share: Share, key: string, warning: { note(): void }): boolean {
    for (const [oldest, entry] of share.entries) {
      if (oldest === key) continue;
      const expired = entry.expires <= Date.now();
      this.#drop(oldest, entry);
      if (!expired) warning.note();
      return true;
    }
    return false;
  }

  /** Drops the expired entries at the least recently used end of a share (a refusal counts live entries only). */
  #dropExpired(share: Share): void {
    const now = Date.now();
    for (const [key, entry] of share.entries) {
      if (entry.expires > now) return;
      this.#drop(key, entry);
    }
  }

  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    const { share } = entry;
    share.entries.delete(key);
    share.bytes -= entry.bytes;
    this.#bytes -= entry.bytes;
    this.#weigh(share);
  }

  /** Keeps a caller's place among the heaviest, and forgets a caller that holds nothing. */
  #weigh(share: Share): void {
    if (share.kind !== 'caller') return;
    if (share.entries.size > 0) return this.#heaviest.update(share);
    this.#heaviest.remove(share);
    this.#callers.delete(share.owner);
  }

  #existing(budget: StoreBudget): Share | undefined {
    if (budget === 'anonymous') return this.#anonymous;
    if (budget === 'security') return this.#security;
    return this.#callers.get(budget.owner);
  }

  #shareFor(budget: StoreBudget): Share {
    const found = this.#existing(budget);
    if (found) return found;
    const owner = (budget as { owner: string }).owner;
    const share = new Share('caller', owner);
    this.#callers.set(owner, share);
    return share;
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
      if (entry.expires <= now) this.#drop(key, entry);
    }
  }
}

function kindOf(budget: StoreBudget): Kind {
  return budget === 'anonymous' || budget === 'security' ? budget : 'caller';
}
