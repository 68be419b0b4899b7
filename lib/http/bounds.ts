/**
 * Bounds on what one POST may hold (docs/security.md "Bounds"): body bytes, JSON nesting depth and legacy batch
 * size; on what its reply may leave behind: the bytes of a resumable stream's event log; and on the resumed streams
 * (GET + Last-Event-ID) one caller follows. Read once at start-up; a bad value is a TypeError naming the variable.
 */

import { integerEnv } from '../config.js';

type Env = Record<string, string | undefined>;

export interface RequestBounds {
  /** MCP_MAX_BODY_BYTES: Vercel caps request bodies at 4.5 MB, so we refuse a little earlier with a JSON-RPC body. */
  maxBodyBytes: number;
  /** MCP_MAX_JSON_DEPTH: nesting of arrays and objects; MCP messages use a handful of levels. */
  maxJsonDepth: number;
  /** MCP_MAX_BATCH: messages in one legacy (2025-03-26) batch; the seed tutorial's clients send at most 32. */
  maxBatch: number;
  /** MCP_MAX_STREAM_LOG_BYTES: events kept for a 2025-11-25 client to resume a stream (lib/http/sse.ts). */
  maxStreamLogBytes: number;
  /**
   * MCP_MAX_STREAM_LOG_MEMORY_BYTES: events all streams of an instance keep in its memory for resumption until
   * a client may need them (lib/http/sse.ts LogMemory).
   */
  maxStreamLogMemoryBytes: number;
  /** MCP_MAX_RESUMED_STREAMS: streams one caller follows at once on an instance (lib/http/resume.ts). */
  maxResumedStreams: number;
}

export const DEFAULT_REQUEST_BOUNDS: Readonly<RequestBounds> = Object.freeze({
  maxBodyBytes: 4 * 1024 * 1024,
  maxJsonDepth: 64,
  maxBatch: 32,
  maxStreamLogBytes: 1024 * 1024,
  maxStreamLogMemoryBytes: 64 * 1024 * 1024,
  maxResumedStreams: 10,
});


export function readRequestBounds(env: Env): RequestBounds {
  return {
    maxBodyBytes: integerEnv(env, 'MCP_MAX_BODY_BYTES', DEFAULT_REQUEST_BOUNDS.maxBodyBytes),
    maxJsonDepth: integerEnv(env, 'MCP_MAX_JSON_DEPTH', DEFAULT_REQUEST_BOUNDS.maxJsonDepth),
    maxBatch: integerEnv(env, 'MCP_MAX_BATCH', DEFAULT_REQUEST_BOUNDS.maxBatch),
    maxStreamLogBytes: integerEnv(env, 'MCP_MAX_STREAM_LOG_BYTES', DEFAULT_REQUEST_BOUNDS.maxStreamLogBytes),
    maxStreamLogMemoryBytes: integerEnv(env, 'MCP_MAX_STREAM_LOG_MEMORY_BYTES', DEFAULT_REQUEST_BOUNDS.maxStreamLogMemoryBytes),
    maxResumedStreams: integerEnv(env, 'MCP_MAX_RESUMED_STREAMS', DEFAULT_REQUEST_BOUNDS.maxResumedStreams),
  };
}

/** One line for the start-up log. */
export function describeRequestBounds(bounds: RequestBounds): string {
  return `request bounds: body ${bounds.maxBodyBytes} bytes (MCP_MAX_BODY_BYTES), JSON depth ${bounds.maxJsonDepth} `
    + `(MCP_MAX_JSON_DEPTH), batch ${bounds.maxBatch} messages (MCP_MAX_BATCH), stream log ${bounds.maxStreamLogBytes} bytes `
    + `(MCP_MAX_STREAM_LOG_BYTES), ${bounds.maxStreamLogMemoryBytes} bytes of stream logs in memory (MCP_MAX_STREAM_LOG_MEMORY_BYTES), ${bounds.maxResumedStreams} resumed streams per caller (MCP_MAX_RESUMED_STREAMS)`;
}
