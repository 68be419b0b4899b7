/**
 * The instance that runs a task's work: it beats while the work runs, stops the work when the task ends
 * elsewhere (cancelled, or failed for a missed heartbeat), and files the outcome. On Vercel the whole drive is
 * kept alive with `waitUntil` (lib/http/keep-alive.ts), so the work finishes after the response was sent.
 */

import { INTERNAL_ERROR, INVALID_PARAMS, McpError } from '../protocol/errors.js';
import { keepAlive } from '../http/keep-alive.js';
import type { Cancellation } from '../server/cancellation.js';
import { isInputRequired, type InputRequired, type RunOutcome } from '../server/registry.js';
import { storeFailureSentence, StoreUnavailableError } from '../store/types.js';
import { endKey, endTask, writeRecord, type InputRequests, type TaskRecord, type TaskRef } from './record.js';

/** A run's answer; a result of an extension's type (x402's payment_required) is the task's result as it is. */
export type Outcome = RunOutcome;

/** A call's work once it settled: its value, or what it threw, kept as a value to race, keep or rethrow. */
export type Settled<T> = { value: T } | { error: unknown };

export const settle = <T>(work: Promise<T>): Promise<Settled<T>> => work.then((value) => ({ value }), (error: unknown) => ({ error }));

/** Work answered in the call's own response: its cancellation is done with, and a failure is thrown as it was. */
export function answerInline<T>(settled: Settled<T>, cancellation: Cancellation): T {
  cancellation.dispose();
  if ('error' in settled) throw settled.error;
  return settled.value;
}

const LEGACY_INPUT = { code: INVALID_PARAMS, message: 'This tool asks for input, which a task cannot do on the 2025-11-25 wire; call it without params.task.' };
/** A run on the caller's behalf has nobody to ask: its call has answered, and the calls that collect it cannot answer questions. */
const LATE_INPUT = { code: INTERNAL_ERROR, message: 'The work asked for input after its call had answered, and a reply collected later cannot ask; call the tool again (questions asked before the reply deadline reach you).' };

/** What the drive does besides beating: refreshes the record before each beat, and is told when the work is over. */
export interface DriveHooks {
  refresh?(record: TaskRecord): void;
  ended?(): void;
}

/** Input request keys carry their round, so a key never names two requests in a task's life (SEP-2663). */
const wireKey = (round: number, key: string) => `${round}.${key}`;

/** The tool's own keys of this round's answers. */
export function answersOfRound(round: number, answers: Record<string, unknown>): Record<string, unknown> {
  const prefix = `${round}.`;
  return Object.fromEntries(Object.entries(answers).filter(([key]) => key.startsWith(prefix)).map(([key, value]) => [key.slice(prefix.length), value]));
}

/** Drives `work` to its outcome in the background; returns at once. */
export function driveTask(ref: TaskRef, record: TaskRecord, work: Promise<Outcome>, cancellation: Cancellation, hooks: DriveHooks = {}): void {
  keepAlive(drive(ref, record, work, cancellation, hooks).catch((error: unknown) => {
    console.error(`[agent-mcp] task ${ref.taskId}: could not record its outcome:`, error);
  }).finally(() => hooks.ended?.()));
}

async function drive(ref: TaskRef, record: TaskRecord, work: Promise<Outcome>, cancellation: Cancellation, hooks: DriveHooks): Promise<void> {
  const done = new AbortController();
  const beat = setInterval(() => {
    hooks.refresh?.(record);
    record.beat = Date.now();
    writeRecord(ref, record).catch((error: unknown) => console.error(`[agent-mcp] task ${ref.taskId}: heartbeat not written:`, error));
  }, ref.settings.heartbeatMs);
  beat.unref?.();
  // The task may end while the work runs: cancelled by its client, or failed by a reader that saw no heartbeat.
  void ref.store.watch([endKey(ref)], ([end]) => end !== undefined, { signal: done.signal, timeoutMs: ref.settings.ttlMs })
    .then((ended) => { if (ended) cancellation.cancel(new Error('The task ended.')); }, () => undefined);
  try {
    const outcome = await settle(work);
    clearInterval(beat);
    done.abort();
    if ('error' in outcome) return void (await endTask(ref, { status: 'failed', error: toTaskError(ref, outcome.error) }));
    if (isInputRequired(outcome.value)) {
      if (record.onBehalf) return void (await endTask(ref, { status: 'failed', error: LATE_INPUT }));
      // The 2025-11-25 wire has no tasks/update: its way to input holds a stream open on tasks/result, which a
      // serverless task cannot rely on, so a legacy task that asks for input fails with an error saying so.
      if (record.era === 'legacy') return void (await endTask(ref, { status: 'failed', error: LEGACY_INPUT }));
      return await awaitInput(ref, record, outcome.value);
    }
    await endTask(ref, { status: 'completed', result: outcome.value as unknown as Record<string, unknown> });
  } finally {
    clearInterval(beat);
    done.abort();
    cancellation.dispose();
  }
}

/** The work asked for input: the task waits, owned by no instance, until tasks/update answers every request. */
async function awaitInput(ref: TaskRef, record: TaskRecord, asked: InputRequired): Promise<void> {
  const inputRequests: InputRequests = {};
  for (const [key, request] of Object.entries(asked.inputRequests ?? {})) inputRequests[wireKey(record.round, key)] = request;
  const now = Date.now();
  await writeRecord(ref, { ...record, status: 'input_required', updatedAt: now, beat: now, inputRequests, state: asked.state });
}

/** A JSON-RPC error makes the task failed with that error (SEP-2663 §Task Status); anything else is logged, not echoed. */
function toTaskError(ref: TaskRef, error: unknown) {
  if (error instanceof McpError) return error.toJSON();
  if (error instanceof StoreUnavailableError) return { code: INTERNAL_ERROR, message: storeFailureSentence(error) };
  console.error(`[agent-mcp] task ${ref.taskId} failed:`, error);
  return { code: INTERNAL_ERROR, message: 'Internal error.' };
}
