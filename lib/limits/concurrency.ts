/**
 * Concurrent calls per caller (MCP_MAX_CONCURRENT_CALLS): a caller runs at most `max` calls at once on an
 * instance; past it a call is refused at once, before it runs, and the caller's other calls go on. Counted per
 * instance in memory, so with N instances a caller may run up to N × max: a count in the shared store would cost
 * a round trip per call, and an instance that dies mid-call would leave its slots taken until they expire.
 *
 * What counts: the methods that run a deployment's or a mount's code and may last (tools/call, resources/read,
 * prompts/get, completion/complete). Lists, pings and task queries are cheap and bounded elsewhere.
 * Whose calls: lib/server/caller.ts `Caller.concurrencyKey` (the principal, else the IP address).
 * A call within its caller's share then takes room of the instance (MCP_MAX_CALLS_PER_INSTANCE, instance.ts), which
 * all callers' calls share: the share bounds one caller, the room what the instance has.
 */

import { integerEnv } from '../config.js';
import { RATE_LIMITED, type RpcError } from '../protocol/errors.js';
import { H_RETRY_AFTER } from '../protocol/headers.js';
import { isRequest, type RequestId } from '../protocol/jsonrpc.js';
import { errorReply } from '../http/replies.js';
import { REFUSAL, type RefusalReason } from '../server/context.js';
import { createCountedWarning } from '../warn.js';
import { clientIp, trustsForwardedAddress } from './check.js';
import {
  defaultMaxCallsPerInstance, instanceFull, instanceFullReply, MAX_CALLS_PER_INSTANCE_VARIABLE, readConfiguredCallsPerInstance, readHeapLimit, readOpenFiles,
} from './instance.js';
import { createSlots } from './slots.js';

export const DEFAULT_MAX_CONCURRENT_CALLS = 16;
const VARIABLE = 'MCP_MAX_CONCURRENT_CALLS';
/** A slot frees when one of the caller's calls ends, which we cannot foresee: a second is a fair first wait. */
const RETRY_AFTER_S = 1;

const COUNTED = new Set(['tools/call', 'resources/read', 'prompts/get', 'completion/complete']);

type Env = Record<string, string | undefined>;

/** MCP_MAX_CONCURRENT_CALLS: a TypeError names a bad value. */
export function readMaxConcurrentCalls(env: Env): number {
  return integerEnv(env, VARIABLE, DEFAULT_MAX_CONCURRENT_CALLS);
}

/** Why a call was not given a slot: counted as `reason`, answered with `error` in a batch's reply, else with `reply`. */
export interface CallRefusal {
  readonly reason: RefusalReason;
  readonly error: RpcError;
  reply(id: RequestId | null): Response;
}

/** A call's slot: calling it gives back what the call holds, once. */
export interface CallSlot {
  (): void;
  /** CallContext.keepRoom: the instance's room goes to work that outlives the call, which gives it back by the function returned. */
  keepRoom(): () => void;
}

export interface CallSlots {
  /** Each caller's share (MCP_MAX_CONCURRENT_CALLS). */
  readonly max: number;
  /** The calls the instance runs at once, all callers together (MCP_MAX_CALLS_PER_INSTANCE). */
  readonly perInstance: number;
  /** The address `request` came from, as this deployment trusts it: its Caller's, whose concurrencyKey the calls take slots of. */
  addressOf(request: Request): string;
  /**
   * A slot of `key` for `message`: its release, to call when the message's call ends (a no-op for a message that
   * does not count), or the refusal when `key` already runs `max` calls or the instance `perInstance`.
   */
  take(key: string, message: unknown): CallSlot | CallRefusal;
}

const NOTHING = () => undefined;
const NOTHING_HELD: CallSlot = Object.assign(() => undefined, { keepRoom: () => NOTHING });

/**
 * `trustForwarded`: on Vercel the edge sets the client's address in headers (lib/limits/check.ts clientIp).
 * `perInstance`: the default sized from what this process has when absent (instance.ts).
 */
export function createCallSlots(max = DEFAULT_MAX_CONCURRENT_CALLS, options: { trustForwarded?: boolean; perInstance?: number } = {}): CallSlots {
  const trustForwarded = options.trustForwarded ?? false;
  // The default is sized from what the process has once the first call has its slot, after that call's reply, so
  // that no cold start reads /proc or loads node:v8 for it (instance.ts); until then, from the files assumed.
  let perInstance = options.perInstance ?? defaultMaxCallsPerInstance({ heapLimitBytes: Infinity });
  let sized = options.perInstance !== undefined;
  const running = createSlots(max);
  /** Calls holding room on the instance: one count, since every caller's calls share it. */
  let inFlight = 0;
  let overInstance = instanceRefusal(perInstance);
  const overShare: CallRefusal = { reason: REFUSAL.concurrency, error: tooManyCalls(max), reply: (id) => tooManyCallsReply(max, id) };
  const refused = createCountedWarning((_, count) => `refused ${count} call(s) over ${VARIABLE}=${max} running per caller`);
  const full = createCountedWarning((_, count) =>
    `refused ${count} call(s) over ${MAX_CALLS_PER_INSTANCE_VARIABLE}=${perInstance} running on this instance, all callers together`);
  const size = () => {
    perInstance = defaultMaxCallsPerInstance({ openFiles: readOpenFiles(), heapLimitBytes: readHeapLimit() });
    overInstance = instanceRefusal(perInstance);
  };
  const takeRoom = (): (() => void) | undefined => {
    if (inFlight >= perInstance) return undefined;
    inFlight++;
    let holding = true;
    return () => {
      if (!holding) return;
      holding = false;
      inFlight--;
    };
  };
  return {
    max,
    get perInstance() {
      return perInstance;
    },
    addressOf: (request) => clientIp(request, trustForwarded),
    take(key, message) {
      if (!isRequest(message) || !COUNTED.has(message.method)) return NOTHING_HELD;
      if (!sized) {
        sized = true;
        setImmediate(size);
      }
      // The caller's share first: a caller over it is told so whatever the instance holds, and never takes room.
      const release = running.take(key);
      if (!release) {
        refused.note();
        return overShare;
      }
      const room = takeRoom();
      if (!room) {
        release();
        full.note();
        return overInstance;
      }
      let kept = false;
      const slot = () => {
        release();
        if (!kept) room();
      };
      return Object.assign(slot, { keepRoom: () => ((kept = true), room) });
    },
  };
}

function instanceRefusal(max: number): CallRefusal {
  return { reason: REFUSAL.instanceFull, error: instanceFull(max), reply: (id) => instanceFullReply(max, id) };
}

/** The call slots the environment configures: the deployment's app's, and a custom app's that brings none (api/mcp.ts). */
export function readCallSlots(env: Env): CallSlots {
  return createCallSlots(readMaxConcurrentCalls(env), { trustForwarded: trustsForwardedAddress(env), perInstance: readConfiguredCallsPerInstance(env) });
}

/** The error of a call refused past the cap, in a batch's reply or as the whole reply. */
export function tooManyCalls(max: number): RpcError {
  return {
    code: RATE_LIMITED,
    message: `Too many concurrent calls: this caller already runs ${max} (${VARIABLE}); retry when one has finished.`,
    data: { limit: max, retryAfterSeconds: RETRY_AFTER_S },
  };
}

/** A single call refused past the cap: 429 with Retry-After, which every client's transport already handles. */
export function tooManyCallsReply(max: number, id: RequestId | null): Response {
  return errorReply(429, tooManyCalls(max), id, { [H_RETRY_AFTER]: String(RETRY_AFTER_S), 'cache-control': 'no-store' });
}
