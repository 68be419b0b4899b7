/**
 * A task in the store, where every instance sees it (docs/architecture.md rule 5), under keys of its owner
 * (lib/server/caller.ts). Four kinds of key, so no two writers ever rewrite one value:
 * - the record (`task`): the call that started it and its working state, written by whoever runs it;
 * - the end (`task-end`): the terminal outcome, claimed once (set-if-absent), so completed, failed and
 *   cancelled never overwrite each other and a terminal task never changes again;
 * - one answer per input request (`task-input`), claimed by tasks/update, so two updates cannot lose one;
 * - one claim per resumption (`task-round`), so a round of input resumes the work exactly once.
 */

import { INTERNAL_ERROR, type RpcError } from '../protocol/errors.js';
import type { Era } from '../protocol/methods.js';
import type { TaskStatus, TerminalStatus } from '../protocol/tasks.js';
import { storeKeys } from '../server/caller.js';
import type { Store } from '../store/types.js';
import { HEARTBEAT_MISSES, type TaskSettings } from './settings.js';

export type InputRequests = Record<string, { method: string; params: Record<string, unknown> }>;

/** The call a task runs, kept so any instance can run its next round. */
export interface TaskOrigin {
  tool: string;
  args: Record<string, unknown>;
  era: Era;
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
}

/**
 * What a run the server started on its caller's behalf (lib/tasks/on-behalf.ts) has reported, kept for the calls
 * that collect it from any instance: written with the record, at each heartbeat.
 */
export interface RunSoFar {
  facts: Record<string, string>;
  text: string;
  note?: string;
  /** When its call arrived. */
  startedAt: number;
  /** Its reply is held until the run ends (a paid call): `text` and `note` stay empty. */
  withheld?: true;
}

export interface TaskRecord extends TaskOrigin {
  createdAt: number;
  updatedAt: number;
  status: 'working' | 'input_required';
  /** When the instance running it last said so (working only). */
  beat: number;
  /** Rounds of input so far; input request keys are prefixed with it, so none repeats in a task's life. */
  round: number;
  inputRequests?: InputRequests;
  /** The tool's MRTR state for its next round, kept here instead of carried by the client. */
  state?: unknown;
  /** The task id at the tool's own server, when that server keeps the task (lib/tasks/remote.ts); nothing beats here. */
  remote?: string;
  /** Set on a task the server started for a caller that did not ask for one: how far its run got. */
  onBehalf?: RunSoFar;
}

export interface TaskEnd {
  status: TerminalStatus;
  result?: Record<string, unknown>;
  error?: RpcError;
  at: number;
}

/** What tasks/get reports. */
export interface TaskView {
  status: TaskStatus;
  createdAt: number;
  updatedAt: number;
  statusMessage?: string;
  result?: Record<string, unknown>;
  error?: RpcError;
  inputRequests?: InputRequests;
}

/** One task of one owner in one store. */
export interface TaskRef {
  store: Store;
  owner: string;
  taskId: string;
  settings: TaskSettings;
}

const recordKey = (ref: TaskRef) => storeKeys.task(ref.owner, ref.taskId);
export const endKey = (ref: TaskRef) => storeKeys.taskEnd(ref.owner, ref.taskId);
const inputKey = (ref: TaskRef, key: string) => storeKeys.taskInput(ref.owner, ref.taskId, key);

export const DIED: RpcError = {
  code: INTERNAL_ERROR,
  message: 'The server instance running this task stopped before it finished; call the tool again.',
};

export function writeRecord(ref: TaskRef, record: TaskRecord): Promise<void> {
  return ref.store.set(recordKey(ref), record, ref.settings.ttlMs);
}

/** Ends the task unless it has ended already; returns the end that stands. */
export async function endTask(ref: TaskRef, end: Omit<TaskEnd, 'at'>): Promise<TaskEnd> {
  const ending: TaskEnd = { ...end, at: Date.now() };
  if (await ref.store.claim(endKey(ref), ending, ref.settings.ttlMs)) return ending;
  return (await ref.store.get<TaskEnd>(endKey(ref))) ?? ending;
}

/** The input requests still unanswered, and the answers given so far, by wire key. */
async function readAnswers(ref: TaskRef, requests: InputRequests) {
  const keys = Object.keys(requests);
  const values = keys.length ? await ref.store.getMany(keys.map((key) => inputKey(ref, key))) : [];
  const answers: Record<string, unknown> = {};
  const outstanding: InputRequests = {};
  keys.forEach((key, i) => {
    if (values[i] === undefined) outstanding[key] = requests[key]!;
    else answers[key] = values[i];
  });
  return { answers, outstanding };
}

export interface ReadTask {
  view: TaskView;
  record: TaskRecord;
  /** Set when every input request of the round is answered: the next round can run with these answers. */
  answered?: Record<string, unknown>;
}

/**
 * The task as tasks/get reports it, or undefined when the owner has no such task (or it expired). A working
 * task whose instance stopped beating is ended as failed here, so it is never reported working forever.
 */
export async function readTask(ref: TaskRef, now = Date.now()): Promise<ReadTask | undefined> {
  const [record, end] = (await ref.store.getMany([recordKey(ref), endKey(ref)])) as [TaskRecord | undefined, TaskEnd | undefined];
  if (!record) return undefined;
  const base = { createdAt: record.createdAt, updatedAt: record.updatedAt };
  if (end) return { record, view: { ...base, ...viewOfEnd(end) } };
  if (record.status === 'working') {
    if (record.remote !== undefined || now - record.beat <= ref.settings.heartbeatMs * HEARTBEAT_MISSES) return { record, view: { ...base, status: 'working' } };
    console.warn(`[agent-mcp] task ${ref.taskId}: no heartbeat for ${now - record.beat} ms; reporting it failed`);
    return { record, view: { ...base, ...viewOfEnd(await endTask(ref, { status: 'failed', error: DIED })) } };
  }
  const { answers, outstanding } = await readAnswers(ref, record.inputRequests ?? {});
  if (Object.keys(outstanding).length > 0) return { record, view: { ...base, status: 'input_required', inputRequests: outstanding } };
  return { record, view: { ...base, status: 'working' }, answered: answers };
}

function viewOfEnd(end: TaskEnd): Pick<TaskView, 'status' | 'result' | 'error' | 'updatedAt'> {
  return { status: end.status, updatedAt: end.at, ...(end.result ? { result: end.result } : {}), ...(end.error ? { error: end.error } : {}) };
}

/** Files answers to the record's outstanding input requests; answers to other keys are ignored (SEP-2663 §Task Update Requests). */
export async function fileAnswers(ref: TaskRef, record: TaskRecord, responses: Record<string, unknown>): Promise<void> {
  const requests = record.status === 'input_required' ? record.inputRequests ?? {} : {};
  const known = Object.entries(responses).filter(([key, value]) => Object.hasOwn(requests, key) && value !== undefined);
  await Promise.all(known.map(([key, value]) => ref.store.claim(inputKey(ref, key), value, ref.settings.ttlMs)));
}

/** True for the one caller that may run the round after `round`. */
export function claimRound(ref: TaskRef, round: number): Promise<boolean> {
  return ref.store.claim(storeKeys.taskRound(ref.owner, ref.taskId, round), true, ref.settings.ttlMs);
}
