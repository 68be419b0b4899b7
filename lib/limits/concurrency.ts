/**
 * Concurrent calls per caller (MCP_MAX_CONCURRENT_CALLS): a caller runs at most `max` calls at once on an
 * instance; past it a call is refused at once, before it runs, and the caller's other calls go on. Counted per
 * instance in memory, so with N instances a caller may run up to N × max: a count in the shared store would cost
 * a round trip per call, and an instance that dies mid-call would leave its slots taken until they expire.
 *
 * What counts: the methods that run a deployment's or a mount's code and may last (tools/call, resources/read,
 * prompts/get, completion/complete). Lists, pings and task queries are cheap and bounded elsewhere.
 * Whose calls: lib/server/caller.ts `Caller.concurrencyKey` (the principal, else the IP address).
 */

import { integerEnv } from '../config.js';
import { RATE_LIMITED, type RpcError } from '../protocol/errors.js';
import { H_RETRY_AFTER } from '../protocol/headers.js';
import { isRequest, type RequestId } from '../protocol/jsonrpc.js';
import { errorReply } from '../http/replies.js';
import { createCountedWarning } from '../warn.js';
import { clientIp } from './check.js';
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

export interface CallSlots {
  readonly max: number;
  /** The address `request` came from, as this deployment trusts it: its Caller's, whose concurrencyKey the calls take slots of. */
  addressOf(request: Request): string;
  /**
   * A slot of `key` for `message`: its release, to call when the message's call ends (a no-op for a message that
   * does not count), or undefined when `key` already runs `max` calls.
   */
  take(key: string, message: unknown): (() => void) | undefined;
}

const NOTHING_HELD = () => undefined;

/** `trustForwarded`: on Vercel the edge sets the client's address in headers (lib/limits/check.ts clientIp). */
export function createCallSlots(max = DEFAULT_MAX_CONCURRENT_CALLS, options: { trustForwarded?: boolean } = {}): CallSlots {
  const trustForwarded = options.trustForwarded ?? false;
  const running = createSlots(max);
  const refused = createCountedWarning((_, count) => `refused ${count} call(s) over ${VARIABLE}=${max} running per caller`);
  return {
    max,
    addressOf: (request) => clientIp(request, trustForwarded),
    take(key, message) {
      if (!isRequest(message) || !COUNTED.has(message.method)) return NOTHING_HELD;
      const release = running.take(key);
      if (!release) refused.note();
      return release;
    },
  };
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
