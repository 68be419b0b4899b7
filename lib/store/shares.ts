/**
 * Who holds what in the memory store's ledger (ledger.ts): a share per caller (or the security records'), the classes
 * callers come in, and what each class is sure of (docs/security.md "The store is shared fairly").
 */

import { Heaviest, type Weighed } from './heaviest.js';
import type { CallerClass, StoreBudget } from './types.js';

export interface Entry {
  /** JSON text of a value, or of each item of a list. */
  value: string | string[];
  /** What the entry costs: its key, its text and a fixed overhead (memory.ts). */
  bytes: number;
  expires: number;
  share: Share;
}

/** One caller's entries, or the security records'. */
export class Share implements Weighed {
  bytes = 0;
  place = -1;
  /** The share's entries, least recently used first (Map order; a read or write moves its key to the end). */
  readonly entries = new Map<string, Entry>();
  /** Held to `maxBytesPerCaller`: a caller; not the pool of callers without an identity or address, nor security records. */
  readonly capped: boolean;
  /** `of`: the class of the caller; undefined for security records. */
  constructor(readonly of: Class | undefined, readonly owner = '') {
    this.capped = of !== undefined && !(of.name === 'anonymous' && owner === '');
  }
}

/** A class of callers: what they hold together, and each caller by what it holds. */
export class Class {
  bytes = 0;
  entries = 0;
  readonly callers = new Map<string, Share>();
  readonly heaviest = new Heaviest<Share>();
  constructor(readonly name: CallerClass) {}
}

/** The classes, in the order the operator's log names them. */
export const CALLER_CLASSES: readonly CallerClass[] = ['principal', 'session', 'anonymous'];

/** A class's share of the store (ledger.ts header): the room every class is sure of, in bytes and entries. */
export function classShareOf(limits: { maxBytes: number; maxBytesSecurity: number; maxEntries: number }): { bytes: number; entries: number } {
  return {
    bytes: Math.max(1, Math.floor((limits.maxBytes - limits.maxBytesSecurity) / CALLER_CLASSES.length)),
    entries: Math.max(1, Math.floor(limits.maxEntries / CALLER_CLASSES.length)),
  };
}

/** The class a caller's budget belongs to: 'anonymous' is the caller without an identity or address. */
export function classOf(budget: Exclude<StoreBudget, 'security'>): CallerClass {
  return budget === 'anonymous' ? 'anonymous' : budget.class ?? 'principal';
}

/** The caller a budget names within its class ('' for the pool). */
export function ownerOf(budget: Exclude<StoreBudget, 'security'>): string {
  return budget === 'anonymous' ? '' : budget.owner;
}

/** Whether a share holds anything but what `kept` names. */
export function evictable(share: Share, kept: string[]): boolean {
  return share.entries.size > kept.filter((key) => share.entries.has(key)).length;
}

/** Whether a budget is a caller's, held to MEMORY_STORE_MAX_BYTES_PER_CALLER (Share.capped). */
export function capped(budget: StoreBudget): boolean {
  return budget !== 'security' && !(classOf(budget) === 'anonymous' && ownerOf(budget) === '');
}
