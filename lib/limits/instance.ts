/**
 * Calls in flight on one instance (MCP_MAX_CALLS_PER_INSTANCE), whoever makes them. Each caller's share
 * (concurrency.ts) bounds what one caller holds; this bounds what all of them hold together, since an instance
 * serves many callers at once (Vercel Fluid compute). Without it, past what the instance has, a new upstream connect
 * fails with EMFILE or the heap runs out, for every caller at once; with it, the call past the bound is refused
 * before it runs with 503 and Retry-After, what an overloaded server says, and the operator gets a counted warning.
 *
 * The default is sized from what the process has, read after the first call's reply (lib/limits/concurrency.ts;
 * ASSUMED_OPEN_FILES until then): a streamed call holds two
 * sockets (the client's and the upstream's), ~40–70 KB of heap and ~200 KB of RSS (docs/performance.md "Streamed
 * calls in flight"). So the smaller of: the open-file limit less a reserve, over two; and the heap limit over
 * HEAP_PER_CALL. On Vercel (about 1,024 descriptors) the files decide, ~480; on a machine with many descriptors, the heap.
 */

import { integerEnv } from '../config.js';
import { INTERNAL_ERROR, type RpcError } from '../protocol/errors.js';
import { H_RETRY_AFTER } from '../protocol/headers.js';
import type { RequestId } from '../protocol/jsonrpc.js';
import { errorReply } from '../http/replies.js';

export const MAX_CALLS_PER_INSTANCE_VARIABLE = 'MCP_MAX_CALLS_PER_INSTANCE';
/** A streamed call's descriptors: the client's socket and the upstream's. */
export const FILES_PER_CALL = 2;
/**
 * Descriptors the process holds besides its calls: Node's own (stdio, epoll, its threads' pipes: ~20 at rest), the
 * shared store's connections, mounted servers, the upstream pools' idle sockets.
 */
export const RESERVED_FILES = 64;
/**
 * Heap limit set aside per call. V8 sizes its heap limit at about a quarter of the machine's memory, so this stands
 * for ~1 MiB of the machine a call: five times what a streamed call holds, room for its stream log and a long reply.
 */
export const HEAP_PER_CALL = 256 * 1024;
/** The open-file limit assumed where it cannot be read (no /proc): Vercel's, and Linux's usual soft limit. */
export const ASSUMED_OPEN_FILES = 1024;
/** An instance frees a call when one ends, which we cannot foresee; a second is a fair first wait. */
const RETRY_AFTER_S = 1;

type Env = Record<string, string | undefined>;

export interface InstanceResources {
  /** The soft limit on open files: Infinity when unlimited, undefined when it cannot be read. */
  openFiles?: number;
  heapLimitBytes: number;
}

/** The process's open-file limit from Linux's /proc/self/limits, and V8's heap limit. */
export function readInstanceResources(): InstanceResources {
  return { openFiles: readOpenFiles(), heapLimitBytes: readHeapLimit() };
}

/** V8's heap limit. `node:v8` costs a cold start 0.3–0.8 ms to load (lib/store/heap.ts): read after the first reply. */
export function readHeapLimit(): number {
  return process.getBuiltinModule('node:v8').getHeapStatistics().heap_size_limit;
}

export function readOpenFiles(): number | undefined {
  let limits: string;
  try {
    limits = process.getBuiltinModule('node:fs').readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\S+)/m.exec(limits)?.[1];
  if (soft === 'unlimited') return Infinity;
  const value = Number(soft);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

export function defaultMaxCallsPerInstance({ openFiles = ASSUMED_OPEN_FILES, heapLimitBytes }: InstanceResources): number {
  const byFiles = Math.floor((openFiles - RESERVED_FILES) / FILES_PER_CALL);
  const byHeap = Math.floor(heapLimitBytes / HEAP_PER_CALL);
  return Math.max(1, Math.min(byFiles, byHeap));
}

/** MCP_MAX_CALLS_PER_INSTANCE when set (a TypeError names a bad value), else undefined: the default of what this process has. */
export function readConfiguredCallsPerInstance(env: Env): number | undefined {
  const raw = env[MAX_CALLS_PER_INSTANCE_VARIABLE];
  return raw === undefined || raw.trim() === '' ? undefined : integerEnv(env, MAX_CALLS_PER_INSTANCE_VARIABLE, 0);
}

/** MCP_MAX_CALLS_PER_INSTANCE, else the default of what this process has: a TypeError names a bad value. */
export function readMaxCallsPerInstance(env: Env, resources: () => InstanceResources = readInstanceResources): number {
  return readConfiguredCallsPerInstance(env) ?? defaultMaxCallsPerInstance(resources());
}

/** The error of a call refused because the instance runs its most, in a batch's reply or as the whole reply. */
export function instanceFull(max: number): RpcError {
  return {
    code: INTERNAL_ERROR,
    message: `Server busy: this instance already runs ${max} calls (${MAX_CALLS_PER_INSTANCE_VARIABLE}); retry shortly.`,
    data: { limit: max, retryAfterSeconds: RETRY_AFTER_S },
  };
}

/** A single call refused because the instance is full: 503 with Retry-After, as for a store outage (api/mcp.ts). */
export function instanceFullReply(max: number, id: RequestId | null): Response {
  return errorReply(503, instanceFull(max), id, { [H_RETRY_AFTER]: String(RETRY_AFTER_S), 'cache-control': 'no-store' });
}
