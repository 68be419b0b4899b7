/** A task as each era writes it: SEP-2663 (`ttlMs`, inlined result, error and input requests) and SEP-1686 (`ttl`). */

import { RESULT_TYPE_TASK } from '../protocol/tasks.js';
import type { TaskView } from './record.js';
import type { TaskSettings } from './settings.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** What both eras' Task has in common. */
function taskBase(taskId: string, view: TaskView): Record<string, unknown> {
  return {
    taskId,
    status: view.status,
    ...(view.statusMessage !== undefined ? { statusMessage: view.statusMessage } : {}),
    createdAt: iso(view.createdAt),
    lastUpdatedAt: iso(view.updatedAt),
  };
}

/** tasks/get's DetailedTask (modern). */
export function modernTask(taskId: string, view: TaskView, settings: TaskSettings): Record<string, unknown> {
  return {
    ...taskBase(taskId, view),
    ttlMs: settings.ttlMs,
    pollIntervalMs: settings.pollIntervalMs,
    ...(view.result ? { result: view.result } : {}),
    ...(view.error ? { error: view.error } : {}),
    ...(view.inputRequests ? { inputRequests: view.inputRequests } : {}),
  };
}

/** A Task of the 2025-11-25 schema; its result comes from tasks/result, never inline. */
export function legacyTask(taskId: string, view: TaskView, settings: TaskSettings): Record<string, unknown> {
  return {
    ...taskBase(taskId, view),
    ttl: settings.ttlMs,
    pollInterval: settings.pollIntervalMs,
  };
}

/** The answer to a tools/call that became a task: flat with `resultType: "task"` (modern), `{ task }` (legacy). */
export function createTaskResult(era: 'legacy' | 'modern', taskId: string, view: TaskView, settings: TaskSettings): Record<string, unknown> {
  return era === 'modern'
    ? { resultType: RESULT_TYPE_TASK, ...modernTask(taskId, view, settings) }
    : { task: legacyTask(taskId, view, settings) };
}
