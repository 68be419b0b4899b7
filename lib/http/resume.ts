/**
 * GET + Last-Event-ID: the rest of a 2025-11-25 call stream the server closed early (SEP-1699 polling).
 * This is the only GET served with a stream; it replays what the log holds after the given id and follows it
 * until the call's reply has been delivered. Only the caller that made the call may resume it: a stream id seen
 * by someone else (a log, a proxy) is no right to its events.
 *
 * Each resumption re-reads the log at every watch tick, so how many an instance follows is bounded (per instance,
 * as the streams are): one per stream, since each message goes on one stream only (2025-11-25 transports §Multiple
 * Connections) and a client that reconnects has given up on its older connection, which is ended; and at most
 * MCP_MAX_RESUMED_STREAMS streams per caller, past which a resumption is refused with 429 (a client that reconnects
 * later finds the log still there, for EVENT_LOG_TTL_MS).
 */

import { H_LAST_EVENT_ID } from '../protocol/headers.js';
import type { Store } from '../store/types.js';
import { createCountedWarning } from '../warn.js';
import { acceptsEventStream } from './negotiate.js';
import { methodNotAllowed, refuse } from './replies.js';
import { EVENT_LOG_TTL_MS, SSE_HEADERS, eventId, eventLogKey, type LoggedEvent } from './sse.js';

const EVENT_ID = /^([A-Za-z0-9-]{16,64})_(\d{1,9})$/;
const encoder = new TextEncoder();
/** Longest wait between re-reads of the log; a comment goes out whenever nothing new arrived. */
const POLL_MS = 15_000;
/** A list reads as absent in a batched read, so any read of the tick (or a write here) means: read the log. */
const anyTick = () => true;

/** The resumptions an instance follows, by caller and stream. */
export interface Resumptions {
  /**
   * Follows `streamId` for `caller`, ending the caller's older resumption of it; undefined when the caller already
   * follows the most streams allowed. `end()` gives the place back.
   */
  open(caller: string, streamId: string): { signal: AbortSignal; end(): void } | undefined;
}

export function createResumptions(maxPerCaller: number): Resumptions {
  const following = new Map<string, Map<string, AbortController>>();
  const refused = createCountedWarning((_, count) =>
    `refused ${count} stream resumption${count === 1 ? '' : 's'}: the caller already followed ${maxPerCaller} streams (MCP_MAX_RESUMED_STREAMS)`);
  return {
    open(caller, streamId) {
      const streams = following.get(caller) ?? new Map<string, AbortController>();
      const older = streams.get(streamId);
      if (!older && streams.size >= maxPerCaller) {
        refused.note();
        return undefined;
      }
      older?.abort();
      const gone = new AbortController();
      streams.set(streamId, gone);
      following.set(caller, streams);
      return {
        signal: gone.signal,
        end() {
          gone.abort();
          if (streams.get(streamId) !== gone) return;
          streams.delete(streamId);
          if (streams.size === 0 && following.get(caller) === streams) following.delete(caller);
        },
      };
    },
  };
}

/**
 * `caller`: the requester's identity (lib/server/caller.ts); only the caller that owns a stream resumes it, within
 * the bounds `resumptions` keeps.
 */
export async function resumeStream(request: Request, store: Store, caller: string | undefined, resumptions: Resumptions): Promise<Response> {
  const lastEventId = request.headers.get(H_LAST_EVENT_ID);
  if (lastEventId === null) return methodNotAllowed();
  if (!acceptsEventStream(request)) return refuse(406, 'Not Acceptable: resuming needs Accept: text/event-stream.');
  const match = EVENT_ID.exec(lastEventId.trim());
  if (!match) return refuse(400, 'Bad Request: unknown Last-Event-ID.');
  const streamId = match[1]!;
  let last = Number(match[2]);
  const logged = await store.range<LoggedEvent>(eventLogKey(streamId), 0);
  const opening = logged[0];
  if (caller === undefined || opening?.owner === undefined || opening.owner !== caller) {
    return refuse(404, 'Not Found: no stream to resume for this Last-Event-ID.');
  }
  const followed = resumptions.open(caller, streamId);
  if (!followed) {
    return refuse(429, 'Too Many Requests: this client already follows the most resumed streams allowed here (MCP_MAX_RESUMED_STREAMS); close one first.');
  }
  const gone = followed.signal;

  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const key = eventLogKey(streamId);
      const deadline = Date.now() + EVENT_LOG_TTL_MS;
      // The first pass serves what the ownership check read. A comment goes first, so the client has its response
      // now rather than with the first event or keep-alive (a Node adapter sends the headers with the first chunk).
      controller.enqueue(encoder.encode(': resumed\n\n'));
      let read: LoggedEvent[] | undefined = logged.slice(last + 1);
      try {
        while (!gone.aborted && Date.now() < deadline) {
          const events = read ?? (await store.range<LoggedEvent>(key, last + 1));
          read = undefined;
          // A newer resumption of the stream took over while the log was read: the events are its to send.
          if (gone.aborted) break;
          for (const event of events) {
            if (event.done) return controller.close();
            last += 1;
            const data = JSON.stringify(event.message);
            controller.enqueue(encoder.encode(`event: message\nid: ${eventId(streamId, last)}\ndata: ${data}\n\n`));
          }
          // The log is re-read when this instance appends to it (at once) or at the store's watch tick.
          await store.watch([key], anyTick, { signal: gone, timeoutMs: POLL_MS });
          if (events.length === 0 && !gone.aborted) controller.enqueue(encoder.encode(': keep-alive\n\n'));
        }
        controller.close();
      } catch {
        /* the client went away or the store failed: the client may resume again from its last id */
      } finally {
        followed.end();
      }
    },
    cancel() {
      followed.end();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
