/**
 * A 2025-11-25 mount's tasks (SEP-1686), for our tasks to wrap (lib/tasks/remote.ts): a tool whose listing allows
 * `execution.taskSupport` is started with a task-augmented tools/call, then followed with tasks/get, tasks/result
 * and tasks/cancel on the mount's shared connection (the session it was made on, to which the mount may bind it).
 * The official client (2.x) keeps task methods out of its typed surface, so they go through `request` with a
 * schema that accepts any result, checked here. A 2026-07-28 mount is never asked for tasks: the client rejects
 * a `resultType: "task"` answer, and the mount is never told the caller supports them.
 */

import type { Tool } from '@modelcontextprotocol/client';
import { INTERNAL_ERROR, McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import type { TaskStatus } from '../protocol/tasks.js';
import type { RequestContext } from '../server/context.js';
import type { RemoteTask, RemoteTasks } from '../tasks/tool-task.js';
import { RemoteUnavailableError } from '../tasks/remote.js';
import { classify, requestOptions, toMcpError, type MountLink } from './forward.js';

/** Accepts any result; the shape is checked by the caller (Standard Schema v1, which `Client.request` takes). */
const ANY_RESULT = { '~standard': { version: 1 as const, vendor: 'agent-mcp', validate: (value: unknown) => ({ value }) } };

const STATUSES = new Set<string>(['working', 'input_required', 'completed', 'failed', 'cancelled']);

/** The mount's tasks for `tool`, when it is a 2025-11-25 mount and the tool may run as a task there. */
export function mountTasks(link: MountLink, tool: Tool): RemoteTasks | undefined {
  const support = tool.execution?.taskSupport;
  if (link.session.era !== 'legacy' || (support !== 'optional' && support !== 'required')) return undefined;
  const ask = async (method: string, params: Record<string, unknown>, ctx: RequestContext): Promise<Record<string, unknown>> => {
    try {
      const result: unknown = await link.session.client.request({ method, params } as never, ANY_RESULT, requestOptions(link, ctx));
      if (!isObject(result)) throw new McpError(INTERNAL_ERROR, `Mount ${link.name} answered ${method} with a result that is not an object.`);
      return result;
    } catch (error) {
      if (error instanceof McpError) throw error;
      const failure = classify(link, error, ctx);
      if (failure.kind !== 'protocol') throw new RemoteUnavailableError(`Mount ${link.name}: ${failure.reason}`);
      throw toMcpError(link, failure);
    }
  };
  return {
    async start(args, ttlMs, ctx) {
      const { task } = await ask('tools/call', { name: tool.name, arguments: args, task: { ttl: ttlMs } }, ctx);
      if (!isObject(task) || typeof task.taskId !== 'string') throw new McpError(INTERNAL_ERROR, `Mount ${link.name} did not answer ${tool.name} with a task.`);
      return task.taskId;
    },
    async get(taskId, ctx) {
      const task = await ask('tasks/get', { taskId }, ctx);
      if (typeof task.status !== 'string' || !STATUSES.has(task.status)) {
        throw new McpError(INTERNAL_ERROR, `Mount ${link.name} reported a task status that is not one of the spec's.`);
      }
      return { status: task.status as TaskStatus, ...(typeof task.statusMessage === 'string' ? { statusMessage: task.statusMessage } : {}) } satisfies RemoteTask;
    },
    result: (taskId, ctx) => ask('tasks/result', { taskId }, ctx),
    async cancel(taskId, ctx) {
      await ask('tasks/cancel', { taskId }, ctx);
    },
  };
}
