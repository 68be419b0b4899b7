/**
 * The tasks feature (docs/tasks.md) as lib/app.ts installs it on the MCP core: the task methods of both wires, the
 * call strategies that run a call as a task or past a reply deadline, and the capability that says tasks are offered.
 */

import { LEGACY_TASKS_CAPABILITY, TASKS_EXTENSION } from '../protocol/tasks.js';
import type { Feature } from '../server/server.js';
import { taskMethods } from './methods.js';
import { DEFAULT_TASK_SETTINGS, type TaskSettings } from './settings.js';
import { asTask, onBehalf } from './strategies.js';

/** Tasks kept as `options` say (TASK_* variables), the defaults where absent. */
export function tasksFeature(options: Partial<TaskSettings> = {}): Feature {
  const settings: TaskSettings = { ...DEFAULT_TASK_SETTINGS, ...options };
  return {
    methods: taskMethods(settings),
    strategies: [asTask(settings), onBehalf(settings)],
    // Offered when some tool can become a task; a mounted server's may (its tasks are passed through). The tasks
    // extension (SEP-2663) exists on the 2026-07-28 wire only; the legacy wire has `tasks` (SEP-1686).
    declare: ({ registry, dynamic }) => dynamic || [...registry.tools.values()].some((tool) => tool.definition.task)
      ? { legacy: { tasks: LEGACY_TASKS_CAPABILITY }, modern: { extensions: { [TASKS_EXTENSION]: {} } } }
      : undefined,
  };
}
