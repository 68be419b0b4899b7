/**
 * How one MCP message counts on the usage page (record.ts CallOutcome), read from its observation once it is done:
 * a tools/call that ran is a call (an error when it failed, by the cause code the request log writes); a request
 * refused before it ran is a refusal, by its reason; anything else (a listing, a notification) is not counted. A
 * tools/call answered with a task is counted once, when its run ends (taskRunOf, taskOutcomeOf): its tokens are
 * spent after the answer.
 */

import { INSUFFICIENT_SCOPE, RATE_LIMITED } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import { RESULT_TYPE_TASK } from '../protocol/tasks.js';
import type { Operation } from '../observe/observation.js';
import { REFUSAL } from '../server/context.js';
import type { TaskRunEnd } from './meter.js';
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
    // A tools/call answered with a task has not run to its end: it is counted when it has (taskOutcomeOf).
    if (isTaskAnswer(operation)) return undefined;
    return { kind: 'call', agent, usage, earnedMicroUsd: operation.earnedMicroUsd };
  }
  return { kind: 'error', agent, code: operation.cause ?? errorType ?? outcome, usage };
}

/** True for a tools/call answered with the task it became (`{ task }` on the 2025-11-25 wire, `resultType: "task"` on 2026-07-28's). */
function isTaskAnswer(operation: Operation): boolean {
  const result = operation.result();
  return operation.method === 'tools/call' && result !== undefined && (result.task !== undefined || result.resultType === RESULT_TYPE_TASK);
}

/** The end of the run of a call answered with a task, when this instance runs it; undefined for any other message. */
export function taskRunOf(operation: Operation): Promise<TaskRunEnd> | undefined {
  return isTaskAnswer(operation) ? operation.usage.taskRun : undefined;
}

/**
 * How a call answered with a task counts once its run ended: a call, or an error when the run failed (it threw, or
 * answered isError), with every token the run reported; a run that stopped to ask for input is a call that ran.
 */
export function taskOutcomeOf(operation: Operation, end: TaskRunEnd): CallOutcome {
  const agent = operation.agent ?? operation.target;
  const usage = operation.usageTotal();
  if ('failed' in end) return { kind: 'error', agent, code: 'internal_error', usage };
  if (isObject(end.value) && end.value.isError === true) return { kind: 'error', agent, code: operation.cause ?? 'tool_error', usage };
  return { kind: 'call', agent, usage, earnedMicroUsd: operation.earnedMicroUsd };
}
