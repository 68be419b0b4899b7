/**
 * How a tool's calls run as tasks, beyond whether they may (lib/server/registry.ts ToolTask, which this file extends):
 * a task another server keeps (`remote`, a mounted server's), and a reply deadline for callers that did not ask for
 * a task (`deadline`), with the views of a run that the tool answers with.
 */

import type { TaskStatus } from '../protocol/tasks.js';
import type { Slots } from '../limits/slots.js';
import type { RequestContext } from '../server/context.js';
import type { ToolResult } from '../server/registry.js';

declare module '../server/registry.js' {
  interface ToolTask<Args = unknown> {
    /** The tool's own server keeps the task (a mounted server's); ours wraps it. */
    remote?: RemoteTasks;
    /** For a caller that did not ask for a task, the server starts one on its behalf when the call outlives the deadline. */
    deadline?: ReplyDeadline<Args>;
  }
}

/** The task of a call as the server that runs it reports it. */
export interface RemoteTask {
  status: TaskStatus;
  statusMessage?: string;
}

/** A tool whose own server keeps its tasks (a mounted server's): start one there, follow it by its id (remote.ts). */
export interface RemoteTasks {
  /** Starts the call as a task there, asking it to keep the task `ttlMs`; its task id there. */
  start(args: Record<string, unknown>, ttlMs: number, ctx: RequestContext): Promise<string>;
  get(taskId: string, ctx: RequestContext): Promise<RemoteTask>;
  /** Waits for the end there and answers what the call answered; a JSON-RPC error is thrown as an McpError. */
  result(taskId: string, ctx: RequestContext): Promise<Record<string, unknown>>;
  cancel(taskId: string, ctx: RequestContext): Promise<void>;
}

/** A run that outlived its call, as the calls that answer about it see it (on-behalf.ts). */
export interface RunView {
  /** What a later call names it by: the id of the task it runs as, bound to its caller. */
  handle: string;
  status: TaskStatus;
  /** What the run reported (lib/server/context.ts RunReport): its facts, the reply's text so far (the last part of a long one), its latest status line. */
  facts: Record<string, string>;
  text: string;
  note?: string;
  /** Its reply is held until the run ends (a paid call, lib/server/context.ts withReplyHeld): no text or status line is kept. */
  withheld?: true;
  /** How long it has run, or ran. */
  elapsedMs: number;
  /** What the call answers, once completed; the JSON-RPC error, once failed. */
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** The run a call collects (or stops) instead of starting one; or, when it names none its caller may collect, the answer. */
export type Collection = { handle: string; owner?: string; cancel?: boolean } | { refused: ToolResult };

/**
 * A reply deadline for callers that did not ask for a task (on-behalf.ts, docs/agents.md): a call still
 * running after `ms` answers with what its work has so far, and the work goes on as a task the server started on the
 * caller's behalf, which later calls of the same tool collect.
 */
export interface ReplyDeadline<Args = unknown> {
  /** How long a call may run before it answers (AGENT_REPLY_DEADLINE_MS); a collecting call waits as long. */
  ms: number;
  /** How long such a run, its reply included, is kept after its last change (AGENT_BACKGROUND_TTL_MS). */
  ttlMs: number;
  /** Runs that outlived their call, per caller on this instance (AGENT_MAX_BACKGROUND_RUNS). */
  runs: Slots;
  /**
   * The run this call collects or stops, when it starts none; undefined, without a promise, when it starts one (the
   * usual call, which should not wait a turn of the event loop to learn it).
   */
  collects(args: Args, ctx: RequestContext): Promise<Collection | undefined> | undefined;
  /**
   * Files a run that has just outlived its call where a collecting call will look, before the call answers, and takes
   * what the run must hold until it ends; what it returns is called once the run's work is over.
   */
  started(run: { handle: string; owner: string; facts: Record<string, string> }, ctx: RequestContext): Promise<(() => Promise<void>) | undefined>;
  /**
   * The answer about a run as it stands; undefined: the caller has no such run (never made, or expired). `stopped`:
   * this call's `cancel` ended it, a success (a run found already ended is not).
   */
  answer(run: RunView | undefined, ctx: RequestContext, stopped?: boolean): ToolResult;
}
