/**
 * Task wire facts of both eras: the 2026-07-28 tasks extension (SEP-2663, `io.modelcontextprotocol/tasks`) and
 * the 2025-11-25 experimental tasks (SEP-1686, basic/utilities/tasks). Field names differ between them (`ttlMs`
 * and `pollIntervalMs` against `ttl` and `pollInterval`); statuses and their meaning are the same.
 */

/** The extension a modern client declares under `_meta["io.modelcontextprotocol/clientCapabilities"].extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** `resultType` of a CreateTaskResult (SEP-2663 §Polymorphic Results). */
export const RESULT_TYPE_TASK = 'task';

/** Legacy `_meta` key tying a message to its task (2025-11-25 tasks §Related Task Metadata). */
export const META_RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** Legacy status notification (2025-11-25 tasks §Task Status Notification). */
export const TASK_STATUS_NOTIFICATION = 'notifications/tasks/status';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
export type TerminalStatus = Extract<TaskStatus, 'completed' | 'failed' | 'cancelled'>;

/** A tool's task support (2025-11-25 Tool.execution.taskSupport); absent means forbidden. */
export type TaskSupport = 'optional' | 'required';

export const isTerminal = (status: string): status is TerminalStatus =>
  status === 'completed' || status === 'failed' || status === 'cancelled';

/** The legacy server capability: tool calls may be task-augmented, tasks listed and cancelled. */
export const LEGACY_TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } } as const;
