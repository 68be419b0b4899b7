/**
 * The one key-value interface for state that must outlive a request or cross instances:
 * replies to server-to-client requests, cancellations, SSE event logs, retries and conversations.
 * Values are JSON. Every key expires.
 *
 * With Upstash every operation is one HTTP round trip and every Redis command is billed, so the interface is
 * shaped by what a call needs at once (docs/architecture.md "What a call costs in store commands"): `enter`
 * and `leave` do a chat turn's reads and writes in one round trip each, and `watch` waits without a read per
 * waiter: one instance-wide batched read every few seconds serves every waiter on the instance.
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

/**
 * The memory store refused a write rather than evict state it promised to keep: a security record over its own
 * budget, a value larger than its caller's budget, or a write when the only room left is security records and other
 * classes of callers within their shares (docs/security.md "The store is shared fairly"). It is a StoreUnavailableError,
 * so every place that answers an unavailable store answers this too; the message says which it was, for the log.
 */
export class StoreFullError extends StoreUnavailableError {
  /** True when the value alone is more than its budget holds: trying again later cannot help. */
  readonly tooLarge: boolean;
  constructor(reason: string, tooLarge = false) {
    super(undefined);
    this.message = `The store refused a write: ${reason}`;
    this.name = 'StoreFullError';
    this.tooLarge = tooLarge;
  }
}

/** What a caller is told when a store operation failed, in a fixed sentence (the cause goes to the operator's log). */
export function storeFailureSentence(error: StoreUnavailableError): string {
  if (!(error instanceof StoreFullError)) return 'The shared store is unavailable; try again shortly.';
  return error.tooLarge
    ? 'This request\'s state is larger than the server keeps for one caller.'
    : 'The server has no room to keep this request\'s state right now; try again later.';
}

/**
 * The classes of callers that share the memory store (docs/security.md "The store is shared fairly"): verified
 * principals, legacy sessions the server issued (without a principal), and callers with neither, each known by the
 * address it calls from. Each class has a share of the store that the others cannot take from it.
 */
export type CallerClass = 'principal' | 'session' | 'anonymous';

/**
 * Whose share of the store a write is charged to (docs/architecture.md rule 12, docs/security.md "The store is shared
 * fairly"): a caller (`owner`: its principal, else the session the server issued, else its address; built by
 * lib/server/caller.ts `Caller.storeBudget`) of a class (`class`, a principal when absent); 'anonymous', the caller without an
 * identity or an address (an in-process caller, a cache anyone can fill); or security records (settled payments,
 * authorization codes, token families: a budget of their own, never evicted before they expire). The memory store
 * keeps these budgets; Upstash keeps none of its own (its eviction is the database's policy), so there a budget
 * changes nothing.
 */
export type StoreBudget = { readonly owner: string; readonly class?: CallerClass } | 'anonymous' | 'security';

/**
 * Room a call holds for its closing writes, taken by `enter` before the call's work runs (an agent's upstream), so a
 * store with no room for the turn refuses it before anything is spent (StoreFullError) rather than after. The room is
 * an entry of `bytes` under `key`, charged to the call's budget, that its `leave` deletes (or that expires).
 */
export interface Reservation {
  key: string;
  /** What the call is expected to add to the store, in the memory store's measure (storedBytes). */
  bytes: number;
  ttlMs: number;
  /**
   * A value the call will rewrite larger (its conversation's history) and what it surely adds to it: when the two are
   * more than one caller may hold, the call is refused at once as too large.
   */
  grows?: { key: string; bytes: number };
}

/** What a text costs the memory store: V8 keeps a string one byte a character unless a character needs two. */
export function storedBytes(text: string): number {
  return TWO_BYTE.test(text) ? 2 * text.length : text.length;
}
const TWO_BYTE = /[^\u0000-\u00ff]/;

/**
 * Logs a store failure for the operator: where it happened, the fixed message, and the underlying error when there is
 * one (a refusal of the memory store has none).
 */
export function logStoreFailure(where: string, error: StoreUnavailableError): void {
  const line = `[agent-mcp] ${where}: ${error.message}`;
  if (error.cause === undefined) console.error(line);
  else console.error(line, error.cause);
}

export interface WaitOptions {
  signal?: AbortSignal;
  timeoutMs: number;
}

/** A value to write, and how long it lives. */
export interface Put {
  key: string;
  value: unknown;
  ttlMs: number;
}

/**
 * A conversation's queue of turns (lib/agent/turn.ts): `queue` holds the last ticket taken, `done` the highest
 * ticket whose turn ended (both integers). Each ticket carries a deadline: the turn's bound past its own wait,
 * kept as the expiry of `queue` (deadlines only grow, so the key expires with the last of them). A ticket
 * waits for the one before it to end, at most until that one's deadline; so a turn whose end is never written
 * (its instance died, the store was down) holds up the next ticket until its deadline and nothing after that.
 */
export interface TurnKeys {
  queue: string;
  done: string;
}

/** Taking a ticket: `turnMs` is the longest one turn may take once it goes, and the longest it may wait. */
export interface TurnEntry extends TurnKeys {
  turnMs: number;
}

/** Ending a turn: the ticket `enter` gave it. */
export interface TurnExit extends TurnKeys {
  ticket: number;
}

/** A counter that lives `ttlMs` after its last increment. */
export interface Counter {
  key: string;
  ttlMs: number;
}

export interface EnterRequest {
  /**
   * Retry coordination: when `result` holds a value it is returned and nothing else happens; otherwise `claim`
   * is set when absent, and a call that finds it taken goes no further (it is a retry of a running call).
   */
  once?: { result: string; claim: string; ttlMs: number };
  /** Takes the next ticket of a turn queue, and reads the highest ticket done and how long to wait. */
  turn?: TurnEntry;
  /** Counts one more and reads the new count. */
  count?: Counter;
  /** Values to read when the call goes ahead (a conversation's history). */
  read?: string[];
  /**
   * Room for the call's closing writes, held first: when it is refused nothing else happens (StoreFullError); when
   * the call does not go ahead (a kept result, a claim taken) it is let go at once. Only a store with `budgeted`
   * holds room; others ignore it.
   */
  reserve?: Reservation;
}

export interface Entered {
  /** The value at `once.result`, when there was one. */
  result?: unknown;
  /** True when the call goes ahead: it took the claim, or none was asked for. */
  claimed: boolean;
  /** The ticket taken (1 for the first), when a turn was asked for and the call goes ahead. */
  ticket?: number;
  /** The highest ticket whose turn had ended, read with the ticket. */
  done?: number;
  /**
   * How long this turn waits for the one before it at most: until that turn's deadline, and never more than
   * `turnMs`; 0 when it goes at once (no earlier ticket, or the one before it has ended).
   */
  waitMs?: number;
  /** The count after this call's increment, when a count was asked for. */
  count?: number;
  /** The values of `read`, in order (undefined when absent), when the call goes ahead. */
  values?: unknown[];
}

export interface LeaveRequest {
  set?: Put[];
  delete?: string[];
  /**
   * Ends a turn: `done` becomes its ticket when that is higher, so writing the same end twice changes nothing.
   * When no later ticket was taken both keys go, so a conversation keeps no counter that nothing waits on.
   * A ticket from a queue that has since expired (past its deadline) changes nothing.
   */
  turn?: TurnExit;
  /** Counts one more. */
  count?: Counter;
}

/**
 * Counters of one time bucket (lib/usage/record.ts): a hash of whole numbers that lives `ttlMs` from its first write,
 * and bounded rankings beside it. A ranked member's fields stay in the hash only while it is among the `bound` heaviest
 * of its set: past the bound the lightest goes (a newcomer no heavier than the lightest incumbent is the one that goes,
 * so a flood of light newcomers cannot push out those already there), its fields are removed and `<set>:dropped`
 * counts one. Field names: `add`'s as given; a ranked member's `<set>:<suffix>:<member>`.
 */
export interface Tally {
  key: string;
  ttlMs: number;
  add: Record<string, number>;
  ranked?: RankedAdd[];
}

/** One member's part of a bounded ranking (Tally): its weight added to the set `<Tally.key>:<set>`, its fields to the hash. */
export interface RankedAdd {
  set: string;
  member: string;
  weight: number;
  bound: number;
  add: Record<string, number>;
}

/** Given the values of the watched keys (undefined when absent), whether the wait is over. */
export type Ready = (values: unknown[]) => boolean;

export interface Store {
  /** True when every instance of the deployment sees the same data (Upstash); false for memory. */
  readonly shared: boolean;
  /** True when the store keeps budgets and holds reservations (memory); Upstash keeps neither (docs/security.md). */
  readonly budgeted: boolean;
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Several values in one read; a list or absent key reads as undefined. */
  getMany(keys: string[]): Promise<unknown[]>;
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
  /** Sets `key` only when it holds nothing; true when this call set it. */
  claim(key: string, value: unknown, ttlMs: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Appends values to a list, refreshing its expiry; returns the new length. */
  append(key: string, values: unknown[], ttlMs: number): Promise<number>;
  /** The list's items from index `from` on (empty when the list does not exist). */
  range<T = unknown>(key: string, from: number): Promise<T[]>;
  /** A call's opening reads and claims, atomically, in one round trip. */
  enter(request: EnterRequest): Promise<Entered>;
  /** A call's closing writes, atomically, in one round trip. */
  leave(request: LeaveRequest): Promise<void>;
  /** Adds to the counters of each tally, atomically, in one round trip (one command on Redis). */
  tally(tallies: Tally[]): Promise<void>;
  /** The counter hashes at `keys`, in order (empty when absent), in one round trip (one command on Redis). */
  readTallies(keys: string[]): Promise<Array<Record<string, number>>>;
  /**
   * Waits until `ready` holds for the values of `keys` and resolves with them, or with undefined when the wait
   * ends first. It reads nothing at once: the caller has just read. The values are read again when this
   * instance writes one of the keys (at once) and at the instance-wide watch tick, one batched read for every
   * waiter (every STORE_WATCH_MS; so a write from another instance, or an expiry, is seen within that).
   */
  watch(keys: string[], ready: Ready, options: WaitOptions): Promise<unknown[] | undefined>;
  /** The same store, with what is written through it charged to `budget` (StoreBudget). Reads are unchanged. */
  withBudget(budget: StoreBudget): Store;
}

/** Reads and removes a value, waiting for it to be written when absent; undefined when the wait ends first. */
export async function takeValue<T>(store: Store, key: string, options: WaitOptions): Promise<T | undefined> {
  const values = await store.watch([key], ([value]) => value !== undefined, options);
  if (values === undefined) return undefined;
  await store.delete(key);
  return values[0] as T;
}
