/**
 * The methods each era serves. A method missing from its era's table is the -32601 answer
 * (on the modern wire with HTTP 404), so no other code decides "unknown method".
 */

import { SKILLS_METHODS } from './skills.js';

export type Era = 'legacy' | 'modern';

const SHARED = [
  'tools/list', 'tools/call',
  'resources/list', 'resources/templates/list', 'resources/read',
  'prompts/list', 'prompts/get',
  'completion/complete',
  // The skills extension's methods (SEP-2640) exist on both wires; an empty catalog answers them emptily.
  ...SKILLS_METHODS,
] as const;

/** Legacy revisions (≤ 2025-11-25): the handshake, ping, session-scoped log level and subscriptions. */
const LEGACY = new Set<string>([
  ...SHARED, 'initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe',
  // Experimental tasks (2025-11-25 basic/utilities/tasks).
  'tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel',
]);

/**
 * 2026-07-28 removed initialize, ping, logging/setLevel and resources/(un)subscribe, and added server/discover.
 * The tasks extension (SEP-2663) adds tasks/get, tasks/update and tasks/cancel; tasks/result and tasks/list are gone.
 */
const MODERN = new Set<string>([...SHARED, 'server/discover', 'tasks/get', 'tasks/update', 'tasks/cancel']);

export function servesMethod(era: Era, method: string): boolean {
  return (era === 'modern' ? MODERN : LEGACY).has(method);
}

/** Requests that may answer `input_required` on the modern wire (basic/patterns/mrtr §Supported Requests). */
export const MRTR_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

export const LOG_LEVELS = [
  'debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency',
] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: unknown): value is LogLevel {
  return (LOG_LEVELS as readonly unknown[]).includes(value);
}

/** True when a message at `level` passes a threshold of `threshold` (RFC 5424 order). */
export function logLevelPasses(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}
