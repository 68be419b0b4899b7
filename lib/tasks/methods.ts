/**
 * tasks/get, tasks/update and tasks/cancel (2026-07-28 tasks extension, SEP-2663), and tasks/get, tasks/result,
 * tasks/list and tasks/cancel (2025-11-25 experimental tasks, SEP-1686). A task id is checked against its MAC
 * before the store is read: an id of another caller, or one made up, is an unknown task (-32602) either way.
 */

import { INVALID_PARAMS, McpError } from '../protocol/errors.js';
import { isObject, notificationMessage } from '../protocol/jsonrpc.js';
import { META_RELATED_TASK, TASK_STATUS_NOTIFICATION, isTerminal } from '../protocol/tasks.js';
import { resumeTask, taskRef, TASK_LABEL } from './call.js';
import { asksForTask, missingTasksExtension } from './negotiate.js';
import { endKey, endTask, fileAnswers, readTask, type ReadTask, type TaskRef } from './record.js';
import { taskWindow } from './quota.js';
import { awaitRemote, cancelRemote, refreshRemote, RemoteUnavailableError } from './remote.js';
import { HEARTBEAT_MISSES, type TaskSettings } from './settings.js';
import { legacyTask, modernTask } from './wire.js';
import { storeKeys } from '../server/caller.js';
import type { RequestContext } from '../server/context.js';
import { paginate } from '../server/pagination.js';
import type { Handler, MethodTable, Server } from '../server/server.js';

const unknownTask = () => new McpError(INVALID_PARAMS, 'Unknown task.');

async function findTask(server: Server, settings: TaskSettings, params: Record<string, unknown>, ctx: RequestContext): Promise<{ ref: TaskRef; read: ReadTask }> {
  if (ctx.era === 'modern' && !asksForTask(ctx, params)) throw missingTasksExtension(ctx.method);
  const { taskId } = params;
  if (typeof taskId !== 'string') throw new McpError(INVALID_PARAMS, 'params.taskId must be a string.');
  const ref = taskRef(settings, ctx, taskId);
  if (!(await server.keyring.check(TASK_LABEL, taskId, ref.owner))) throw unknownTask();
  const stored = await readTask(ref);
  if (!stored) throw unknownTask();
  // A task another server keeps (a mounted server's) is as that server says; tasks/result waits there instead, and
  // tasks/cancel cancels ours even when that server cannot be reached.
  const read = ctx.method === 'tasks/result' ? stored : await refreshRemote(server, ctx, ref, stored).catch((error: unknown) => {
    if (ctx.method === 'tasks/cancel' && error instanceof RemoteUnavailableError) return stored;
    throw error;
  });
  // Every input is in but the instance that filed the last answer did not resume the work: this one does.
  if (read.answered) await resumeTask(server, ctx, ref, read.record, read.answered);
  return { ref, read };
}

async function getTask(server: Server, settings: TaskSettings, params: Record<string, unknown>, ctx: RequestContext) {
  const { ref, read } = await findTask(server, settings, params, ctx);
  return ctx.era === 'modern' ? modernTask(ref.taskId, read.view, settings) : legacyTask(ref.taskId, read.view, settings);
}

/** Answers to the task's input requests; the ack is empty and the task moves on when the last one is in. */
async function updateTask(server: Server, settings: TaskSettings, params: Record<string, unknown>, ctx: RequestContext) {
  if (!isObject(params.inputResponses)) throw new McpError(INVALID_PARAMS, 'params.inputResponses must be an object.');
  const { ref, read } = await findTask(server, settings, params, ctx);
  await fileAnswers(ref, read.record, params.inputResponses);
  const after = await readTask(ref);
  if (after?.answered) await resumeTask(server, ctx, ref, after.record, after.answered);
  return {};
}

/**
 * Ends the task as cancelled and stops its work wherever it runs (the running instance watches the end). Modern:
 * an empty ack, also for a task already ended (SEP-2663 §Task Cancellation). Legacy: the cancelled task, and
 * -32602 for a task already ended (2025-11-25 tasks §Task Cancellation).
 */
async function cancelTask(server: Server, settings: TaskSettings, params: Record<string, unknown>, ctx: RequestContext) {
  const { ref, read } = await findTask(server, settings, params, ctx);
  if (ctx.era === 'modern') {
    if (!isTerminal(read.view.status)) {
      await cancelRemote(server, ctx, read);
      await endTask(ref, { status: 'cancelled' });
    }
    return {};
  }
  if (isTerminal(read.view.status)) throw new McpError(INVALID_PARAMS, `Task is already ${read.view.status}.`);
  await cancelRemote(server, ctx, read);
  const end = await endTask(ref, { status: 'cancelled' });
  return legacyTask(ref.taskId, { ...read.view, status: end.status, updatedAt: end.at }, settings);
}

/**
 * Legacy: waits for the task to end and answers what the tool call would have (2025-11-25 tasks §Result Retrieval).
 * A client that waited hears the end on its open stream first (notifications/tasks/status, optional in the spec).
 */
async function taskResult(server: Server, settings: TaskSettings, params: Record<string, unknown>, ctx: RequestContext) {
  const found = await findTask(server, settings, params, ctx);
  const { ref } = found;
  let view = found.read.record.remote === undefined || isTerminal(found.read.view.status) ? found.read.view
    : (await awaitRemote(server, ctx, ref, found.read)).view;
  while (!isTerminal(view.status)) {
    // Woken by the end at once on this instance, else by the store's watch tick; a dead worker is found by readTask.
    await ctx.store.watch([endKey(ref)], ([end]) => end !== undefined, { signal: ctx.signal, timeoutMs: settings.heartbeatMs * HEARTBEAT_MISSES });
    if (ctx.signal.aborted) throw new McpError(INVALID_PARAMS, 'The wait for the task was cancelled.');
    const read = await readTask(ref);
    if (!read) throw unknownTask();
    view = read.view;
    if (isTerminal(view.status)) ctx.outbound?.write(notificationMessage(TASK_STATUS_NOTIFICATION, legacyTask(ref.taskId, view, settings)));
  }
  const related = { [META_RELATED_TASK]: { taskId: ref.taskId } };
  if (view.status === 'completed') {
    const result = view.result ?? {};
    return { ...result, _meta: { ...(isObject(result._meta) ? result._meta : {}), ...related } };
  }
  if (view.status === 'failed' && view.error) throw new McpError(view.error.code, view.error.message, view.error.data);
  throw new McpError(INVALID_PARAMS, 'The task was cancelled.', related);
}

/**
 * Legacy: the caller's tasks, newest last; a caller without an identity has none it can list. The index has a list
 * per window of TASK_TTL_MS (lib/tasks/quota.ts): a task still kept was made in this window or the previous one.
 */
async function listTasks(server: Server, settings: TaskSettings, params: Record<string, unknown>, ctx: RequestContext) {
  const owner = ctx.caller.taskOwner;
  const window = taskWindow(settings);
  const ids = owner === '' ? [] : (await Promise.all([window - 1, window].map((w) => ctx.store.range<string>(storeKeys.taskIndex(owner, w), 0)))).flat();
  const { page, nextCursor } = paginate(ids, params.cursor, server.pageSize);
  const reads = await Promise.all(page.map((taskId) => readTask(taskRef(settings, ctx, taskId)).then((read) => ({ taskId, read }))));
  const tasks = reads.filter(({ read }) => read).map(({ taskId, read }) => legacyTask(taskId, read!.view, settings));
  return { tasks, ...(nextCursor ? { nextCursor } : {}) };
}

type TaskMethod = (server: Server, settings: TaskSettings, params: Record<string, unknown>, ctx: RequestContext) => unknown;

/** The task methods of both wires by name, for tasks kept as `settings` say (lib/protocol/methods.ts says which wire has which). */
export function taskMethods(settings: TaskSettings): MethodTable {
  const bind = (method: TaskMethod): Handler => (server, params, ctx) => method(server, settings, params, ctx);
  return {
    'tasks/get': bind(getTask),
    'tasks/update': bind(updateTask),
    'tasks/cancel': bind(cancelTask),
    'tasks/result': bind(taskResult),
    'tasks/list': bind(listTasks),
  };
}
