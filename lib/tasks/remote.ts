/**
 * Tasks another server keeps: a mounted server whose tool runs as a task there (2025-11-25 tasks, SEP-1686). Our
 * task wraps its task: the id the caller holds is ours (issued and MACed to the caller like any other), the record
 * remembers the task id there, and tasks/get, tasks/result and tasks/cancel ask there. Nothing runs on our
 * instance meanwhile, so such a task outlives any function's `maxDuration`; its end, once seen, is filed as ours
 * and the other server is not asked again.
 */

import { INTERNAL_ERROR, McpError } from '../protocol/errors.js';
import { isTerminal } from '../protocol/tasks.js';
import { requireAccess } from '../server/access.js';
import type { RequestContext } from '../server/context.js';
import { findInSources } from '../server/registry.js';
import type { Server } from '../server/server.js';
import { endTask, type ReadTask, type TaskEnd, type TaskRef } from './record.js';
import type { RemoteTask, RemoteTasks } from './tool-task.js';

/**
 * The server keeping the task could not be asked (unreachable, timed out, the request cancelled): the caller gets this
 * error for its request, and the task stays as it was, for the next request to ask again.
 */
export class RemoteUnavailableError extends McpError {
  constructor(message: string) {
    super(INTERNAL_ERROR, message);
  }
}

/** An answer of the server keeping the task: an error there ends ours; one of reaching it does not. */
const isAnswer = (error: unknown): error is McpError => error instanceof McpError && !(error instanceof RemoteUnavailableError);

/**
 * The remote side of a task's tool. A tool not found now (its mount is not connected) may be back on a later request,
 * so that is unavailability, not an end; a task whose tool never comes back expires after TASK_TTL_MS. Asking there
 * uses the mount's credentials, so it needs the tool's scopes, as calling it did (lib/server/access.ts).
 */
async function remoteOf(server: Server, ctx: RequestContext, tool: string): Promise<RemoteTasks> {
  const found = server.registry.tools.get(tool) ?? (await findInSources(server.sources, ctx, (registry) => registry.tools.get(tool)));
  const remote = found?.definition.task?.remote;
  if (!remote) throw new RemoteUnavailableError(`The server that runs this task (tool ${tool}) is not reachable now; ask again later.`);
  requireAccess(server, found.definition, tool, ctx);
  return remote;
}

/**
 * Files the end the other server reached. A result is what the call answered, so the task is completed with it (a
 * tool error included, `isError: true`, as for our own tasks); a JSON-RPC error is the failure, unless the task was
 * cancelled there.
 */
async function fileRemoteEnd(ref: TaskRef, remote: RemoteTasks, taskId: string, ctx: RequestContext): Promise<TaskEnd> {
  let result: Record<string, unknown>;
  try {
    result = await remote.result(taskId, ctx);
  } catch (error) {
    if (!isAnswer(error)) throw error;
    const there = await remote.get(taskId, ctx).catch(() => undefined);
    return endTask(ref, there?.status === 'cancelled' ? { status: 'cancelled' } : { status: 'failed', error: error.toJSON() });
  }
  return endTask(ref, { status: 'completed', result });
}

function withEnd(read: ReadTask, end: TaskEnd): ReadTask {
  const { status, at, result, error } = end;
  return { ...read, view: { ...read.view, status, updatedAt: at, ...(result ? { result } : {}), ...(error ? { error } : {}) } };
}

/**
 * The task as its server reports it now, filed as ours when it has ended. A JSON-RPC error from there (it no longer
 * knows the task) ends ours as failed with that error; a RemoteUnavailableError is thrown, and the next poll asks again.
 */
export async function refreshRemote(server: Server, ctx: RequestContext, ref: TaskRef, read: ReadTask): Promise<ReadTask> {
  const taskId = read.record.remote;
  if (taskId === undefined || isTerminal(read.view.status)) return read;
  const remote = await remoteOf(server, ctx, read.record.tool);
  let there: RemoteTask;
  try {
    there = await remote.get(taskId, ctx);
  } catch (error) {
    if (!isAnswer(error)) throw error;
    return withEnd(read, await endTask(ref, { status: 'failed', error: error.toJSON() }));
  }
  if (there.status === 'cancelled') return withEnd(read, await endTask(ref, { status: 'cancelled' }));
  if (isTerminal(there.status)) return withEnd(read, await fileRemoteEnd(ref, remote, taskId, ctx));
  // Input asked there cannot be relayed (the 2025-11-25 wire asks on a tasks/result stream): the task is working.
  return { ...read, view: { ...read.view, status: 'working', ...(there.statusMessage ? { statusMessage: there.statusMessage } : {}) } };
}

/** Legacy tasks/result: waits for the end there, on this request, and files it. */
export async function awaitRemote(server: Server, ctx: RequestContext, ref: TaskRef, read: ReadTask): Promise<ReadTask> {
  return withEnd(read, await fileRemoteEnd(ref, await remoteOf(server, ctx, read.record.tool), read.record.remote!, ctx));
}

/**
 * Asks the server keeping the task to cancel it. Ours is cancelled whatever the answer: an error there means it has
 * ended already, and a server that cannot be reached now is told nothing (its task ends by its own TTL), which the
 * operator hears.
 */
export async function cancelRemote(server: Server, ctx: RequestContext, read: ReadTask): Promise<void> {
  const taskId = read.record.remote;
  if (taskId === undefined) return;
  try {
    await (await remoteOf(server, ctx, read.record.tool)).cancel(taskId, ctx);
  } catch (error) {
    if (!isAnswer(error)) console.warn(`[agent-mcp] task of ${read.record.tool} cancelled here only: ${error instanceof Error ? error.message : String(error)}`);
  }
}
