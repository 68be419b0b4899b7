/**
 * How one MCP message counts on the usage page (record.ts CallOutcome), read from its observation once it is done:
 * a tools/call that ran is a call (an error when it failed, by the cause code the request log writes); a request
 * refused before it ran is a refusal, by its reason; anything else (a listing, a notification) is not counted.
 */

import { INSUFFICIENT_SCOPE, RATE_LIMITED } from '../protocol/errors.js';
import type { Operation } from '../observe/observation.js';
import { REFUSAL } from '../server/context.js';
import type { CallOutcome } from './record.js';

/** An HTTP refusal the request never reached the dispatcher past, by its status. */
const BY_STATUS: Readonly<Record<number, string>> = {
  401: REFUSAL.signIn, 402: REFUSAL.payment, 403: REFUSAL.forbidden, 413: REFUSAL.tooLarge, 429: REFUSAL.rateLimit,
};

/** JSON-RPC errors that are refusals rather than failures, on any method. */
const REFUSING_CODES: Readonly<Record<number, string>> = { [INSUFFICIENT_SCOPE]: REFUSAL.scope, [RATE_LIMITED]: REFUSAL.rateLimit };

export function callOutcomeOf(operation: Operation, status: number): CallOutcome | undefined {
  if (operation.refusal !== undefined) return { kind: 'refusal', reason: operation.refusal };
  if (!operation.wasAnswered()) {
    if (status < 400) return undefined;
    if (status >= 500) return operation.method === 'tools/call' ? { kind: 'error', code: operation.errorType(status) ?? String(status) } : undefined;
    // Other 4xx (a GET the endpoint does not serve, a wrong Accept, a malformed body) are protocol mismatches, not refusals.
    const reason = BY_STATUS[status];
    return reason === undefined ? undefined : { kind: 'refusal', reason };
  }
  const code = operation.errorCode();
  const refused = code === undefined ? undefined : REFUSING_CODES[code];
  if (refused !== undefined) return { kind: 'refusal', reason: refused };
  if (operation.method !== 'tools/call') return undefined;
  const agent = operation.agent ?? (operation.reachedTarget() ? operation.target : undefined);
  const usage = operation.usageTotal();
  const { outcome, errorType } = operation.ended(status);
  if (outcome === 'input_required') return undefined;
  if (outcome === 'success') {
    // A tools/call answered with a task has not run yet: its run is not counted here.
    if (operation.result()?.task !== undefined) return undefined;
    return { kind: 'call', agent, usage, earnedMicroUsd: operation.earnedMicroUsd };
  }
  return { kind: 'error', agent, code: operation.cause ?? errorType ?? outcome, usage };
}
