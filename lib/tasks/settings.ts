/**
 * How long tasks live and how they are watched (docs/tasks.md). Read once at start-up; a bad value is a TypeError
 * naming the variable.
 */

import { integerEnv } from '../config.js';

export interface TaskSettings {
  /** TASK_TTL_MS: a task is kept this long after its last change, its result included; then it is unknown. */
  ttlMs: number;
  /** TASK_POLL_INTERVAL_MS: the polling interval suggested to clients. */
  pollIntervalMs: number;
  /**
   * TASK_HEARTBEAT_MS: how often the instance running a task says so. A working task whose instance missed
   * HEARTBEAT_MISSES beats in a row is reported failed: the instance died (or its function hit maxDuration).
   */
  heartbeatMs: number;
  /** TASK_MAX_PER_CALLER: the most tasks one principal holds, or one issued session within the pool (lib/tasks/quota.ts). */
  maxPerCaller: number;
  /** TASK_MAX_ANONYMOUS: the most tasks every caller without a principal holds together, on both wires. */
  maxAnonymous: number;
}

export const DEFAULT_TASK_SETTINGS: Readonly<TaskSettings> = {
  ttlMs: 3_600_000, pollIntervalMs: 2_000, heartbeatMs: 5_000, maxPerCaller: 100, maxAnonymous: 1_000,
};

/** Beats a running task may miss before it is reported failed; more than one, so a slow store write is no death. */
export const HEARTBEAT_MISSES = 3;

export function readTaskSettings(env: Record<string, string | undefined>): TaskSettings {
  return {
    ttlMs: integerEnv(env, 'TASK_TTL_MS', DEFAULT_TASK_SETTINGS.ttlMs),
    pollIntervalMs: integerEnv(env, 'TASK_POLL_INTERVAL_MS', DEFAULT_TASK_SETTINGS.pollIntervalMs),
    heartbeatMs: integerEnv(env, 'TASK_HEARTBEAT_MS', DEFAULT_TASK_SETTINGS.heartbeatMs),
    maxPerCaller: integerEnv(env, 'TASK_MAX_PER_CALLER', DEFAULT_TASK_SETTINGS.maxPerCaller),
    maxAnonymous: integerEnv(env, 'TASK_MAX_ANONYMOUS', DEFAULT_TASK_SETTINGS.maxAnonymous),
  };
}

export function describeTaskSettings(settings: TaskSettings): string {
  return `tasks: kept ${settings.ttlMs} ms after their last change (TASK_TTL_MS), heartbeat every ${settings.heartbeatMs} ms ` +
    `(TASK_HEARTBEAT_MS), a working task is failed after ${HEARTBEAT_MISSES} missed beats; at most ${settings.maxPerCaller} tasks ` +
    `per principal or session (TASK_MAX_PER_CALLER) and ${settings.maxAnonymous} for all callers without a principal together (TASK_MAX_ANONYMOUS)`;
}
