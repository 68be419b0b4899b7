/**
 * A call that collects a run the server started on its caller's behalf (on-behalf.ts). It waits for the run's end up
 * to the reply deadline, on whichever instance it lands: the end is in the store, and a write on this instance wakes
 * the wait at once, one on another within STORE_WATCH_MS. Then it answers the end (the whole reply), or how far the
 * run got. Cancelling the collecting call (notifications/cancelled, or closing the stream on the 2026-07-28 wire)
 * cancels the run, as `cancel` does; the instance running it aborts its work when it sees the end.
 *
 * The run is the caller's: its handle is a task id MACed to the caller (call.ts TASK_LABEL), or one a tool found under
 * a key of the caller's (the chat tool: under the conversation). Any other id is no run, whoever sends it.
 */

import { isTerminal } from '../protocol/tasks.js';
import type { RequestContext } from '../server/context.js';
import type { ToolResult } from '../server/registry.js';
import type { Server } from '../server/server.js';
import { TASK_LABEL } from './call.js';
import { endKey, endTask, readTask, type ReadTask, type TaskRef } from './record.js';
import { HEARTBEAT_MISSES, type TaskSettings } from './settings.js';
import type { ReplyDeadline, RunView } from './tool-task.js';

export async function collectRun(
  server: Server, settings: TaskSettings, deadline: ReplyDeadline, collection: { handle: string; owner?: string; cancel?: boolean }, ctx: RequestContext,
): Promise<ToolResult> {
  const owner = collection.owner ?? ctx.caller.taskOwner;
  const ref: TaskRef = { store: ctx.store, owner, taskId: collection.handle, settings: runSettings(settings, deadline) };
  if (!(await server.keyring.check(TASK_LABEL, ref.taskId, owner))) return deadline.answer(undefined, ctx);
  let read = await readTask(ref);
  // A task the client asked for is followed with tasks/get; only a run started on the caller's behalf is collected.
  if (!read?.record.onBehalf) return deadline.answer(undefined, ctx);
  // Whether this call's `cancel` stopped the run: a success to answer as one, unlike a run found already ended.
  let stopped = false;
  if (!isTerminal(read.view.status)) {
    if (!collection.cancel) {
      await ctx.store.watch([endKey(ref)], ([end]) => end !== undefined, { signal: ctx.signal, timeoutMs: deadline.ms });
    }
    if (collection.cancel || ctx.signal.aborted) {
      const end = await endTask(ref, { status: 'cancelled' });
      stopped = collection.cancel === true && end.status === 'cancelled';
    }
    read = (await readTask(ref)) ?? read;
  }
  return deadline.answer(viewOfRun(ref.taskId, read), ctx, stopped);
}

/**
 * The settings of a run's task: the tasks', kept AGENT_BACKGROUND_TTL_MS after its last change, and at least a few
 * heartbeats, since a running task's record lives from one beat to the next.
 */
export function runSettings(settings: TaskSettings, deadline: Pick<ReplyDeadline, 'ttlMs'>): TaskSettings {
  return { ...settings, ttlMs: Math.max(deadline.ttlMs, (HEARTBEAT_MISSES + 1) * settings.heartbeatMs) };
}

/** The run as a tool answers about it: its status and end (task view) with what it reported (its record). */
export function viewOfRun(handle: string, { view, record }: Pick<ReadTask, 'view' | 'record'>): RunView {
  const soFar = record.onBehalf ?? { facts: {}, text: '', startedAt: record.createdAt };
  const until = isTerminal(view.status) ? view.updatedAt : Date.now();
  return {
    handle,
    status: view.status,
    facts: soFar.facts,
    text: soFar.text,
    ...(soFar.note !== undefined ? { note: soFar.note } : {}),
    ...(soFar.withheld ? { withheld: true as const } : {}),
    elapsedMs: Math.max(0, until - soFar.startedAt),
    ...(view.result ? { result: view.result } : {}),
    ...(view.error ? { error: view.error } : {}),
  };
}
