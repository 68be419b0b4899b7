/**
 * A reply deadline for callers that did not ask for a task (docs/agents.md "Slow agents"). Their clients give up on a
 * call after a minute or so, progress or not, and cannot follow a task. So a tool with a deadline
 * (tool-task.ts ReplyDeadline) runs such a call the way the 2026-07-28 wire runs a call that may become a task
 * (call.ts): answered in the response when it settles in time; else the server opens a task on the caller's behalf,
 * the work goes on under it exactly as a task's does (heartbeat, cancellation, its end in the store), and the call
 * answers a normal tool result that the tool writes: what the work has so far and how to come back for the rest. A
 * later call that collects the run (collect.ts) may land on any instance.
 *
 * The task counts against the caller's tasks (TASK_MAX_PER_CALLER, TASK_MAX_ANONYMOUS), and the run against its runs
 * going at once on this instance (AGENT_MAX_BACKGROUND_RUNS). A run is its call going on after the call answered, so it
 * is counted where the call's concurrent-call slot was (caller.ts Caller.backgroundKey), and like those slots in this
 * instance's memory: the run holds this instance (its `waitUntil`), and a count in the shared store would outlive an
 * instance that died. Past either bound, the work is stopped at the deadline and the caller is told which bound, rather
 * than left with a call its client will cut off and lose.
 */

import { keepAlive } from '../http/keep-alive.js';
import type { RequestContext } from '../server/context.js';
import type { ToolResult } from '../server/registry.js';
import type { ToolCall } from '../server/server.js';
import { storeFailureSentence, StoreUnavailableError } from '../store/types.js';
import { createCountedWarning } from '../warn.js';
import { linkUntilTask, openTask, settlesWithin, startWork } from './call.js';
import { collectRun, runSettings, viewOfRun } from './collect.js';
import { endTask, type TaskRecord } from './record.js';
import { createRunReport } from './report.js';
import { takeTaskSlot, type TaskSlot } from './quota.js';
import { answerInline, driveTask, settle, type Outcome } from './run.js';
import type { TaskSettings } from './settings.js';
import type { ReplyDeadline } from './tool-task.js';

/** The bound on runs that outlived their call, named to the caller and the operator when it is hit. */
const RUN_SLOTS_VARIABLE = 'AGENT_MAX_BACKGROUND_RUNS';

const stopped = createCountedWarning((bound, count) =>
  `stopped ${count} call(s) at their reply deadline: they could not go on in the background past ${bound}`);

/** Runs (or collects) a call of a tool with a reply deadline, for a caller that did not ask for a task. */
export async function callOnBehalf(
  { server, tool, parsed, args }: ToolCall, settings: TaskSettings, deadline: ReplyDeadline, ctx: RequestContext,
): Promise<Outcome> {
  const collecting = deadline.collects(parsed, ctx);
  const collection = collecting && (await collecting);
  if (collection) return 'refused' in collection ? collection.refused : collectRun(server, settings, deadline, collection, ctx);
  const report = createRunReport();
  const link = linkUntilTask(ctx);
  const { origin, cancellation, work, unhook } = startWork(server, tool, parsed, args, ctx, { outbound: link.outbound, observation: link.observation, report });
  try {
    // A call its client cancelled ends with its work, which the cancellation stops: it never goes on.
    const settled = (await settlesWithin(work, deadline.ms))
      ?? (ctx.cancellation.cancelled ? await settle(work) : undefined);
    if (settled) return answerInline(settled, cancellation);
  } finally {
    unhook();
  }

  const release = deadline.runs.take(ctx.caller.backgroundKey);
  let slot: TaskSlot | undefined;
  try {
    slot = release && (await takeTaskSlot(ctx.store, ctx.caller.taskQuota, settings));
  } catch (error) {
    release!();
    cancellation.cancel(error);
    return failedToKeep(error);
  }
  if (!release || !slot?.granted) {
    release?.();
    const bound = slot ? { variable: slot.variable, max: slot.max } : { variable: RUN_SLOTS_VARIABLE, max: deadline.runs.max };
    cancellation.cancel(new Error('The call outlived its reply deadline and could not go on.'));
    stopped.note(`${bound.variable}=${bound.max}`);
    return refusal(`The reply was not ready by the deadline (${deadline.ms} ms), and the work could not go on in the background: ` +
      `this caller already has ${bound.max} such runs or tasks (${bound.variable}). It was stopped; collect or stop an earlier one, then call again.`);
  }
  link.detach();
  let opened: Awaited<ReturnType<typeof openTask>>;
  try {
    opened = await openTask(server, ctx, origin, slot, { settings: runSettings(settings, deadline), onBehalf: report.soFar() });
  } catch (error) {
    release();
    cancellation.cancel(error);
    return failedToKeep(error);
  }
  const { ref, record } = opened;
  let over!: () => void;
  const workOver = new Promise<void>((resolve) => (over = resolve));
  // The run holds the call's upstream socket: it keeps the call's room on the instance until it ends.
  const room = ctx.keepRoom?.();
  driveTask(ref, record, work, cancellation, { refresh: (kept) => void (kept.onBehalf = report.soFar()), ended: () => { release(); room?.(); over(); } });
  try {
    const finish = await deadline.started({ handle: ref.taskId, owner: ref.owner, facts: record.onBehalf!.facts }, ctx);
    if (finish) keepAlive(workOver.then(finish).catch((error: unknown) => console.error(`[agent-mcp] task ${ref.taskId}: what its run held was not given back:`, error)));
  } catch (error) {
    // Nobody could find the run by its conversation: it is stopped rather than left to run for nobody.
    await endTask(ref, { status: 'cancelled' }).catch(() => undefined);
    return failedToKeep(error);
  }
  return deadline.answer(viewOfRun(ref.taskId, { view: { status: 'working', createdAt: record.createdAt, updatedAt: record.updatedAt }, record }), ctx);
}

function refusal(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** The store did not keep the run: the caller hears it in a fixed sentence, the operator gets the cause. */
function failedToKeep(error: unknown): ToolResult {
  if (!(error instanceof StoreUnavailableError)) throw error;
  console.error('[agent-mcp] a call past its reply deadline could not go on in the background:', error);
  return refusal(`The reply was not ready by the deadline, and it could not go on in the background: ${storeFailureSentence(error)}`);
}
