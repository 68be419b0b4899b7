/**
 * tools/call as a task. A tool declares task support (`task` in its definition); a modern client that declared the
 * tasks extension, or a legacy client that sent `params.task`, may get a task. The work starts at once, detached
 * from the request (its end, or a closed stream, no longer cancels it once it is a task). On the modern wire the
 * server decides (SEP-2663 §Capability Negotiation): a tool that answers within its `afterMs` answers as usual,
 * MRTR rounds included; a slower one becomes a task and its answer lands in the task. On the legacy wire the
 * client asked, so the task is made at once (2025-11-25 tasks §Creating Tasks).
 */

import { INTERNAL_ERROR, INVALID_PARAMS, McpError } from '../protocol/errors.js';
import { storeKeys } from '../server/caller.js';
import { Cancellation } from '../server/cancellation.js';
import { isRequest, type JsonRpcMessage } from '../protocol/jsonrpc.js';
import { createRequestContext, type CallContext, type CallObservation, type Outbound, type RequestContext, type RunReport, type RefusalReason, type ToolFailure } from '../server/context.js';
import { findInSources, type CompiledTool } from '../server/registry.js';
import type { Server, ToolCall } from '../server/server.js';
import { claimRound, endTask, writeRecord, type RunSoFar, type TaskRecord, type TaskRef } from './record.js';
import { takeTaskSlot, type TaskSlot } from './quota.js';
import { answerInline, answersOfRound, driveTask, settle, type Outcome, type Settled } from './run.js';
import type { TaskSettings } from './settings.js';
import type { RemoteTasks } from './tool-task.js';
import { createTaskResult } from './wire.js';

/** Keyring label of task ids: a MAC binds each to its owner, so another caller's id is simply unknown. */
export const TASK_LABEL = 'task';

export function taskRef(settings: TaskSettings, ctx: Pick<RequestContext, 'store' | 'caller'>, taskId: string): TaskRef {
  return { store: ctx.store, owner: ctx.caller.taskOwner, taskId, settings };
}

/** The request's way back to its client, for a call that may still answer in the response; and where its work reports. */
export interface RequestLink {
  outbound?: Outbound;
  observation?: CallObservation;
  report?: RunReport;
}

/** The context a task's work runs in: the caller's, without the request's signal, and with `link` while it has one. */
export function taskContext(
  server: Server, ctx: CallContext & { requestId: RequestContext['requestId'] }, record: Pick<TaskRecord, 'tool' | 'args'>, cancellation: Cancellation,
  round: { inputResponses?: Record<string, unknown>; requestState?: unknown; meta?: Record<string, unknown> }, link: RequestLink = {},
): RequestContext {
  const call: CallContext = {
    era: ctx.era, protocolVersion: ctx.protocolVersion, principal: ctx.principal, caller: ctx.caller,
    clientCapabilities: ctx.clientCapabilities, logLevel: ctx.logLevel, store: ctx.store, chargeCaller: ctx.chargeCaller,
    limitTool: ctx.limitTool, tokenBudget: ctx.tokenBudget, outbound: link.outbound, observation: link.observation, report: link.report,
    // The call's one meter: what its run spends is the call's, whether it answers in the response or as a task.
    usage: ctx.usage,
  };
  const params = { name: record.tool, arguments: record.args, _meta: round.meta };
  return createRequestContext(call, ctx.requestId, 'tools/call', params, {
    keyring: server.keyring, cancellation, inputResponses: round.inputResponses, requestState: round.requestState,
  });
}

/**
 * The request's stream and observation, passed on until `detach`: while the call may still answer in the response
 * its progress, logs and upstream time are the request's, as without tasks; a task has none (SEP-2663 §Task Status
 * Notifications: progress and log notifications are not supported on tasks), and the request they belonged to is over.
 */
export function linkUntilTask(ctx: RequestContext): RequestLink & { detach(): void } {
  return new LinkUntilTask(ctx);
}

/** One object that is both the linked stream and the linked observation: every call with a reply deadline makes one. */
class LinkUntilTask implements RequestLink, Outbound, CallObservation {
  #open = true;
  readonly #outbound: Outbound | undefined;
  readonly #observation: CallObservation | undefined;
  readonly traceHeaders: Record<string, string> | undefined;

  constructor({ outbound, observation }: RequestContext) {
    this.#outbound = outbound;
    this.#observation = observation;
    this.traceHeaders = observation?.traceHeaders;
  }

  get outbound(): Outbound | undefined {
    return this.#outbound && this;
  }

  get observation(): CallObservation | undefined {
    return this.#observation && this;
  }

  /** An arrow: a legacy question to the client hands `write` on by itself (context.ts requestClient). */
  readonly write = (message: JsonRpcMessage): void => {
    if (this.#open) return this.#outbound!.write(message);
    // A question to the client (legacy elicitation, sampling) would wait for an answer nobody can send any more.
    if (isRequest(message)) throw new McpError(INTERNAL_ERROR, ASKED_TOO_LATE);
  };

  noteUpstream(ms: number): void {
    if (this.#open) this.#observation!.noteUpstream(ms);
  }

  noteCause(cause: string): void {
    if (this.#open) this.#observation!.noteCause?.(cause);
  }

  noteToolFailure(failure: ToolFailure): void {
    if (this.#open) this.#observation!.noteToolFailure?.(failure);
  }

  noteAgent(agentId: string): void {
    if (this.#open) this.#observation!.noteAgent?.(agentId);
  }

  noteRefusal(reason: RefusalReason): void {
    if (this.#open) this.#observation!.noteRefusal?.(reason);
  }

  noteEarned(microUsd: number): void {
    if (this.#open) this.#observation!.noteEarned?.(microUsd);
  }

  detach(): void {
    this.#open = false;
  }
}

const ASKED_TOO_LATE = 'The work asked the client a question after its call had answered, and nobody can answer it any more; call the tool again.';

/** -32603 naming the bound: the 2025-11-25 tasks text gives no code for it (§Resource Management, §Error Handling). */
function tooManyTasks(slot: TaskSlot): McpError {
  const holder = slot.variable === 'TASK_MAX_ANONYMOUS' ? 'callers without a principal already hold' : 'this caller already holds';
  return new McpError(INTERNAL_ERROR, `Too many tasks: ${holder} ${slot.max} (${slot.variable}); ` +
    'try again when older tasks have expired, or call the tool without params.task.', { maxTasks: slot.max });
}

/**
 * Starts the tool's work in a task's context, with the request's `link`. Until `unhook` the work is the request's: a
 * client that leaves cancels it. The request's `_meta` goes along: a paid tool finds the client's x402 payment there.
 */
export function startWork(server: Server, tool: CompiledTool, parsed: unknown, args: Record<string, unknown>, ctx: RequestContext, link?: RequestLink) {
  const origin = { tool: tool.definition.name, args };
  // Linked to the request's until `unhook`, after which the request's end no longer reaches the work.
  const cancellation = new Cancellation(ctx.cancellation);
  const runCtx = taskContext(server, ctx, origin, cancellation, { inputResponses: ctx.inputResponses, requestState: ctx.requestState, meta: ctx.meta }, link);
  const work: Promise<Outcome> = Promise.resolve().then(() => tool.definition.run(parsed, runCtx));
  return { origin, cancellation, work, unhook: () => cancellation.dispose() };
}

/** Runs the tool; answers as usual when it is quick enough (or the caller holds its most tasks), else with the task it became. */
export async function callAsTask(call: ToolCall, settings: TaskSettings, ctx: RequestContext): Promise<Outcome | Record<string, unknown>> {
  const { server, tool, parsed, args } = call;
  const remote = tool.definition.task?.remote;
  if (remote) return callAsRemoteTask(call, remote, settings, ctx);
  const quota = ctx.caller.taskQuota;
  // The legacy client asked for a task and gets one at once, or the bound's error before any work starts.
  const early = ctx.era === 'legacy' ? await takeTaskSlot(ctx.store, quota, settings) : undefined;
  if (early && !early.granted) throw tooManyTasks(early);
  const link = ctx.era === 'modern' ? linkUntilTask(ctx) : undefined;
  const { origin, cancellation, work, unhook } = startWork(server, tool, parsed, args, ctx, link);
  let slot = early;
  try {
    const afterMs = ctx.era === 'modern' ? tool.definition.task?.afterMs ?? 0 : 0;
    const quick = afterMs > 0 ? await settlesWithin(work, afterMs) : undefined;
    slot ??= quick ? undefined : await takeTaskSlot(ctx.store, quota, settings);
    // Quick enough, or past the bound: the server may always answer in the response (SEP-2663 §Capability Negotiation).
    const inline = quick ?? (slot?.granted ? undefined : await settle(work));
    if (inline) return answerInline(inline, cancellation);
  } finally {
    unhook();
  }
  link?.detach();
  const { ref, record, created } = await openTask(server, ctx, origin, slot!, { settings });
  // The work goes on past the call: it keeps the call's room on the instance until it ends.
  driveTask(ref, record, work, cancellation, { ended: ctx.keepRoom?.() });
  // The call is counted for the usage page when its run ends, with what the run spent (lib/usage/counter.ts).
  ctx.usage.continuesAsTask(work);
  return created;
}

/**
 * A call of a tool whose own server keeps its tasks (a mounted server's): the task is started there at once and
 * ours wraps it (lib/tasks/remote.ts). Past the caller's bound: the legacy error, or a plain call on the modern wire.
 */
async function callAsRemoteTask({ server, tool, parsed, args }: ToolCall, remote: RemoteTasks, settings: TaskSettings, ctx: RequestContext) {
  const slot = await takeTaskSlot(ctx.store, ctx.caller.taskQuota, settings);
  if (!slot.granted) {
    if (ctx.era === 'legacy') throw tooManyTasks(slot);
    return tool.definition.run(parsed, ctx);
  }
  const taskId = await remote.start(args, settings.ttlMs, ctx);
  return (await openTask(server, ctx, { tool: tool.definition.name, args }, slot, { settings, remote: taskId })).created;
}

/**
 * The task's settings (a run started on the caller's behalf has its own, collect.ts runSettings), and what sets it
 * apart: the id at the server that keeps it, or the report of a run started on the caller's behalf.
 */
export interface TaskKind {
  settings: TaskSettings;
  remote?: string;
  onBehalf?: RunSoFar;
}

/**
 * Issues the task's id, files its record (and, for a task the client asked for, its place in the legacy index) and
 * answers the call with it.
 */
export async function openTask(server: Server, ctx: RequestContext, origin: Pick<TaskRecord, 'tool' | 'args'>, slot: TaskSlot, kind: TaskKind) {
  const owner = ctx.caller.taskOwner;
  const { settings, remote, onBehalf } = kind;
  const ref = taskRef(settings, ctx, await server.keyring.issue(TASK_LABEL, owner));
  const now = Date.now();
  const record: TaskRecord = {
    ...origin, era: ctx.era, protocolVersion: ctx.protocolVersion, clientCapabilities: ctx.clientCapabilities,
    createdAt: now, updatedAt: now, status: 'working', beat: now, round: 0, ...(remote !== undefined ? { remote } : {}),
    ...(onBehalf ? { onBehalf } : {}),
  };
  // Durable before the reply (SEP-2663 §Task Creation): a tasks/get right after it must find the task.
  await writeRecord(ref, record);
  if (ctx.era === 'legacy' && owner !== '' && !onBehalf) await ctx.store.append(storeKeys.taskIndex(owner, slot.window), [ref.taskId], 2 * settings.ttlMs);
  return { ref, record, created: createTaskResult(ctx.era, ref.taskId, { status: 'working', createdAt: now, updatedAt: now }, settings) };
}

/** The work's outcome when it settles within `ms`, else undefined (the work goes on). */
export function settlesWithin<T>(work: Promise<T>, ms: number): Promise<Settled<T> | undefined> {
  // One promise and one timer, not a race of two promises: every call with a reply deadline comes here.
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms, undefined);
    work.then((value) => {
      clearTimeout(timer);
      resolve({ value });
    }, (error: unknown) => {
      clearTimeout(timer);
      resolve({ error });
    });
  });
}

/**
 * Runs the round after every input request of `record`'s round is answered, on the instance that saw it first
 * (a claim per round: two instances never both resume). Called from tasks/update and tasks/get.
 */
export async function resumeTask(server: Server, ctx: RequestContext, ref: TaskRef, record: TaskRecord, answers: Record<string, unknown>): Promise<void> {
  if (!(await claimRound(ref, record.round))) return;
  const now = Date.now();
  const next: TaskRecord = { ...record, status: 'working', round: record.round + 1, beat: now, updatedAt: now, inputRequests: undefined, state: undefined };
  await writeRecord(ref, next);
  const tool = server.registry.tools.get(record.tool) ?? (await findInSources(server.sources, ctx, (registry) => registry.tools.get(record.tool)));
  const parsed = tool?.validate ? await tool.validate(record.args) : { success: true as const, data: record.args };
  if (!tool || !parsed.success) {
    await endTask(ref, { status: 'failed', error: { code: INVALID_PARAMS, message: `Tool ${record.tool} is no longer available.` } });
    return;
  }
  const cancellation = new Cancellation();
  const origin = { ...ctx, era: record.era, protocolVersion: record.protocolVersion, clientCapabilities: record.clientCapabilities };
  const runCtx = taskContext(server, origin, record, cancellation, { inputResponses: answersOfRound(record.round, answers), requestState: record.state });
  driveTask(ref, next, Promise.resolve().then(() => tool.definition.run(parsed.data, runCtx)), cancellation);
}
