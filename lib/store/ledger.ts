/**
 * The memory store's accounting (docs/architecture.md rule 12; docs/security.md "The store is shared fairly"). Every entry
 * belongs to one share, the budget its last write was charged to (types.ts StoreBudget):
 * - callers come in three classes (principals, sessions, callers known by their address; types.ts CallerClass), and
 *   each class has a share of the store: a third of what security records may not hold
 *   ((`maxBytes` - `maxBytesSecurity`) / 3, and a third of `maxEntries`);
 * - each caller holds at most `maxBytesPerCaller`; over it, that caller's own least recently used entries go (callers
 *   without an identity or an address, in process or filling a cache anyone can fill, are one pool of the anonymous
 *   class, held to that class's rules only);
 * - security records hold at most `maxBytesSecurity` together and are never evicted: over it, the write is refused.
 * When the store as a whole is over `maxBytes` or `maxEntries`, the room comes from the class furthest over its share
 * (the writer's own class when no other is over its share), and within that class from the caller holding the most
 * (its least recently used entry): no class loses state to another while it is within its share, and no caller
 * loses state to make room while another of its class holds more than it does. Since the shares and the security
 * records' budget add up to the whole, a class within its share always finds room. A write that cannot be given room
 * by these rules is refused: StoreFullError, thrown before anything changes.
 */

import { createCountedWarning } from '../warn.js';
import { CALLER_CLASSES, capped, Class, classOf, classShareOf, evictable, ownerOf, Share, type Entry } from './shares.js';
import { StoreFullError, type CallerClass, type StoreBudget } from './types.js';

export interface LedgerLimits {
  maxBytes: number;
  maxEntries: number;
  maxBytesPerCaller: number;
  maxBytesSecurity: number;
}

export type { Entry } from './shares.js';

/** Entries examined for expiry per write: expired entries go in time proportional to writes, never all at once. */
const SWEEP_PER_WRITE = 4;

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

export class Ledger {
  readonly limits: Readonly<LedgerLimits>;
  /** The share of each class (classShareOf). */
  readonly share: Readonly<{ bytes: number; entries: number }>;
  readonly #entries = new Map<string, Entry>();
  readonly #classes = new Map<CallerClass, Class>(CALLER_CLASSES.map((name) => [name, new Class(name)]));
  readonly #security = new Share(undefined);
  #bytes = 0;
  #sweeping: Iterator<string> | undefined;
  readonly #evictedOwn;
  readonly #evictedForRoom;
  readonly #refused;

  constructor(limits: LedgerLimits) {
    this.limits = limits;
    this.share = classShareOf(limits);
    const { maxBytes, maxEntries, maxBytesPerCaller } = limits;
    this.#evictedOwn = createCountedWarning((_, count) =>
      `memory store: callers over MEMORY_STORE_MAX_BYTES_PER_CALLER=${maxBytesPerCaller} lost ${plural(count, 'entry', 'entries')} `
      + 'of their own (least recently used first) since the last report.');
    this.#evictedForRoom = createCountedWarning((_, count) =>
      `memory store over its budget (MEMORY_STORE_MAX_BYTES=${maxBytes}, MEMORY_STORE_MAX_ENTRIES=${maxEntries}): evicted `
      + `${plural(count, 'least recently used entry', 'least recently used entries')} since the last report, from the class of callers `
      + `furthest over its share (${this.share.bytes} bytes and ${plural(this.share.entries, 'entry', 'entries')} each for principals, sessions and callers `
      + 'without an identity), within it from the caller holding the most; conversations and retried calls older than these are forgotten.');
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

  /** What one class of callers holds together. */
  bytesOfClass(name: CallerClass): number {
    return this.#classes.get(name)!.bytes;
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

  /** What a caller may still add before it is over MEMORY_STORE_MAX_BYTES_PER_CALLER (the whole store for the pool). */
  roomOf(budget: StoreBudget): number {
    return capped(budget) ? Math.max(0, this.limits.maxBytesPerCaller - this.bytesOf(budget)) : this.limits.maxBytes;
  }

  /** Refuses (StoreFullError, tooLarge) a value of `bytes` that the budget could never hold, however much room is made. */
  checkSize(bytes: number, budget: StoreBudget): void {
    const { maxBytes, maxBytesPerCaller } = this.limits;
    if (capped(budget) && bytes > maxBytesPerCaller) {
      this.#refuse(`a value of ${bytes} bytes is more than one caller may hold (MEMORY_STORE_MAX_BYTES_PER_CALLER=${maxBytesPerCaller})`, true);
    }
    if (bytes > maxBytes) this.#refuse(`a value of ${bytes} bytes is more than the store holds (MEMORY_STORE_MAX_BYTES=${maxBytes})`, true);
  }

  /**
   * Keeps `value` under `key`, charged to `budget`, making room as the rules above say; StoreFullError when it may not.
   * `keep`: another entry that must not be evicted to make this room (the history a reservation is for).
   */
  put(key: string, value: string | string[], bytes: number, expires: number, budget: StoreBudget, keep?: string): void {
    const old = this.#entries.get(key);
    this.#refuseUnlessRoom(bytes, budget, old, keep === undefined ? undefined : this.#entries.get(keep));
    if (old) this.#drop(key, old);
    const share = this.#shareFor(budget);
    const entry: Entry = { value, bytes, expires, share };
    this.#entries.set(key, entry);
    share.entries.set(key, entry);
    share.bytes += bytes;
    this.#bytes += bytes;
    if (share.of) {
      share.of.bytes += bytes;
      share.of.entries += 1;
    }
    this.#weigh(share);
    this.#sweep();
    this.#makeRoom(keep === undefined ? [key] : [key, keep], share);
  }

  #refuseUnlessRoom(bytes: number, budget: StoreBudget, old: Entry | undefined, kept: Entry | undefined): void {
    const { maxBytes, maxEntries, maxBytesSecurity } = this.limits;
    const security = budget === 'security';
    if (security) {
      this.#dropExpired(this.#security);
      const replaced = old?.share === this.#security ? old.bytes : 0;
      if (this.#security.bytes - replaced + bytes > maxBytesSecurity) {
        this.#refuse(`security records would hold more than MEMORY_STORE_MAX_BYTES_SECURITY=${maxBytesSecurity} bytes`);
      }
    }
    this.checkSize(bytes, budget);
    const overBytes = this.#bytes - (old?.bytes ?? 0) + bytes - maxBytes;
    const overEntries = this.#entries.size - (old ? 1 : 0) + 1 - maxEntries;
    if (overBytes <= 0 && overEntries <= 0) return;
    // What may give way: for a security record, any class; for a caller, its own class and what other classes hold
    // over their shares. The entry this write replaces goes anyway, so it is not counted twice; the one it keeps stays.
    const writer = security ? undefined : this.#classes.get(classOf(budget));
    let freeBytes = 0;
    let freeEntries = 0;
    for (const c of this.#classes.values()) {
      const bytesOf = c.bytes - (old?.share.of === c ? old.bytes : 0);
      const entriesOf = c.entries - (old?.share.of === c ? 1 : 0);
      const [keptBytes, keptEntries] = kept?.share.of === c ? [kept.bytes, 1] : [0, 0];
      const mine = security || c === writer;
      freeBytes += mine ? bytesOf - keptBytes : Math.max(0, Math.min(bytesOf - this.share.bytes, bytesOf - keptBytes));
      freeEntries += mine ? entriesOf - keptEntries : Math.max(0, Math.min(entriesOf - this.share.entries, entriesOf - keptEntries));
    }
    if (overBytes > freeBytes || overEntries > freeEntries) {
      this.#refuse(security
        ? 'the store is full (MEMORY_STORE_MAX_BYTES, MEMORY_STORE_MAX_ENTRIES) with security records, which are never evicted'
        : 'the store is full (MEMORY_STORE_MAX_BYTES, MEMORY_STORE_MAX_ENTRIES) with security records, which are never evicted, '
          + 'and the state of other classes of callers within their shares');
    }
  }

  #refuse(reason: string, tooLarge = false): never {
    this.#refused.note(reason);
    throw new StoreFullError(reason, tooLarge);
  }

  /** Room for the entry just written (the first of `kept`): never by evicting what `kept` names, nor a security record. */
  #makeRoom(kept: string[], share: Share): void {
    const { maxBytes, maxEntries, maxBytesPerCaller } = this.limits;
    while (share.capped && share.bytes > maxBytesPerCaller && this.#evictOldest(share, kept, this.#evictedOwn));
    while (this.#bytes > maxBytes || this.#entries.size > maxEntries) {
      const giver = this.#giver(share, kept);
      if (!giver || !this.#evictOldest(giver, kept, this.#evictedForRoom)) return;
    }
  }

  /**
   * Who gives room for the entry just written under `key` by `writer`: the class furthest over its share among those
   * that may give (for a caller: its own class and the classes over their shares; for a security record: any), and
   * within it the caller holding the most (the next one, when that one holds nothing but what `kept` names).
   */
  #giver(writer: Share, kept: string[]): Share | undefined {
    let chosen: Class | undefined;
    let furthest = -1;
    for (const c of this.#classes.values()) {
      const usage = Math.max(c.bytes / this.share.bytes, c.entries / this.share.entries);
      const mayGive = writer.of === undefined || c === writer.of || usage > 1;
      const gives = c.entries - kept.filter((key) => this.#entries.get(key)?.share.of === c).length;
      if (mayGive && gives > 0 && usage > furthest) {
        chosen = c;
        furthest = usage;
      }
    }
    if (!chosen) return undefined;
    const top = chosen.heaviest.top();
    return top && evictable(top, kept) ? top : chosen.heaviest.top(top);
  }

  /** Drops the share's least recently used entry other than those `kept` names; false when it has none. */
  #evictOldest(share: Share, kept: string[], warning: { note(): void }): boolean {
    for (const [oldest, entry] of share.entries) {
      if (kept.includes(oldest)) continue;
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
    if (share.of) {
      share.of.bytes -= entry.bytes;
      share.of.entries -= 1;
    }
    this.#weigh(share);
  }

  /** Keeps a caller's place among the heaviest of its class, and forgets a caller that holds nothing. */
  #weigh(share: Share): void {
    const c = share.of;
    if (!c) return;
    if (share.entries.size > 0) return c.heaviest.update(share);
    c.heaviest.remove(share);
    c.callers.delete(share.owner);
  }

  #existing(budget: StoreBudget): Share | undefined {
    if (budget === 'security') return this.#security;
    return this.#classes.get(classOf(budget))!.callers.get(ownerOf(budget));
  }

  #shareFor(budget: StoreBudget): Share {
    const found = this.#existing(budget);
    if (found) return found;
    if (budget === 'security') return this.#security;
    const c = this.#classes.get(classOf(budget))!;
    const share = new Share(c, ownerOf(budget));
    c.callers.set(share.owner, share);
    return share;
  }

  /** Moves a cursor a few entries along the map (Map iterators survive deletes and see later inserts). */
  #sweep(): void {
    const now = Date.now();
    for (let i = 0; i < SWEEP_PER_WRITE; i++) {
      // Keys, not entries: an entry's step allocated a [key, entry] pair, four per write (docs/performance.md
      // "Issue 48: the warm call").
      this.#sweeping ??= this.#entries.keys();
      const next = this.#sweeping.next();
      if (next.done) {
        this.#sweeping = undefined;
        return;
      }
      const entry = this.#entries.get(next.value)!;
      if (entry.expires <= now) this.#drop(next.value, entry);
    }
  }
}
