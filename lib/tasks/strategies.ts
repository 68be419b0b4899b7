/**
 * How the tasks feature runs a tools/call (lib/server/server.ts CallStrategy): as a task when the caller asked for one
 * and the tool may become one (call.ts); on the caller's behalf past a tool's reply deadline when it did not ask
 * (on-behalf.ts). Every other call goes on to the tool's own run, untouched.
 */

import { METHOD_NOT_FOUND, McpError } from '../protocol/errors.js';
import type { CallStrategy } from '../server/server.js';
import { callAsTask } from './call.js';
import { asksForTask, missingTasksExtension } from './negotiate.js';
import { callOnBehalf } from './on-behalf.js';
import type { TaskSettings } from './settings.js';

/** A call the caller asked to run as a task; and the refusals of a task asked of a tool without support, or not asked of one that needs it. */
export const asTask = (settings: TaskSettings): CallStrategy => (call, ctx, next) => {
  const { tool, params } = call;
  const support = tool.definition.task?.support;
  const asksTask = asksForTask(ctx, params);
  if (support && asksTask) return callAsTask(call, settings, ctx);
  if (support === 'required') {
    if (ctx.era === 'modern') throw missingTasksExtension(`Tool ${tool.definition.name}`);
    throw new McpError(METHOD_NOT_FOUND, `Tool ${tool.definition.name} must be called as a task (params.task).`);
  }
  // A legacy client must not ask a tool without task support for a task (2025-11-25 tasks §Tool-Level Negotiation);
  // the modern wire tolerates and ignores the old `task` param (SEP-2663).
  if (asksTask && ctx.era === 'legacy') throw new McpError(METHOD_NOT_FOUND, `Tool ${tool.definition.name} cannot be called as a task.`);
  return next(call, ctx);
};

/** A caller that did not ask for a task still gets its answer before its client gives up (on-behalf.ts). */
export const onBehalf = (settings: TaskSettings): CallStrategy => (call, ctx, next) => {
  const deadline = call.tool.definition.task?.deadline;
  return deadline ? callOnBehalf(call, settings, deadline, ctx) : next(call, ctx);
};
