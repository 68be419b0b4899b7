/** Whether a call may become a task, and the refusal when a tool needs one the client cannot take. */

import { MISSING_REQUIRED_CLIENT_CAPABILITY, McpError } from '../protocol/errors.js';
import { declaresExtension } from '../protocol/client-capabilities.js';
import { isObject } from '../protocol/jsonrpc.js';
import { TASKS_EXTENSION } from '../protocol/tasks.js';
import type { RequestContext } from '../server/context.js';

/** True when this call may become a task: the modern extension declared on the request, or the legacy `task` param. */
export function asksForTask(ctx: Pick<RequestContext, 'era' | 'clientCapabilities'>, params: Record<string, unknown>): boolean {
  if (ctx.era === 'legacy') return isObject(params.task);
  return declaresExtension(ctx.clientCapabilities, TASKS_EXTENSION);
}

/** -32021 naming the extension (SEP-2663 §Capability Negotiation, SEP-2575 §Missing Required Capabilities). */
export function missingTasksExtension(what: string): McpError {
  return new McpError(MISSING_REQUIRED_CLIENT_CAPABILITY, `${what} needs the ${TASKS_EXTENSION} extension in the request's client capabilities.`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}
