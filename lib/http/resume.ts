/**
 * GET + Last-Event-ID: the rest of a 2025-11-25 call stream the server closed early (SEP-1699 polling).
 * This is the only GET served with a stream; it replays what the log holds after the given id and follows it
 * until the call's reply has been delivered. Only the caller that made the call may resume it: a stream id seen
 * by someone else (a log, a proxy) is no right to its events.
 */

import { H_LAST_EVENT_ID } from '../protocol/headers.js';
import type { Store } from '../store/types.js';
import { acceptsEventStream } from './negotiate.js';
import { methodNotAllowed, refuse } from './replies.js';
import { EVENT_LOG_TTL_MS, SSE_HEADERS, eventId, eventLogKey, type LoggedEvent } from './sse.js';

const EVENT_ID = /^([A-Za-z0-9-]{16,64})_(\d{1,9})$/;
const encoder = new TextEncoder();
/** Longest wait between re-reads of the log; a comment goes out whenever nothing new arrived. */
const POLL_MS = 15_000;
/** A list reads as absent in a batched read, so any read of the tick (or a write here) means: read the log. */
const anyTick = () => true;

/** `caller`: the requester's identity (lib/server/caller.ts); only the caller that owns a stream resumes it. */
export async function resumeStream(request: Request, store: Store, caller: string | undefined): Promise<Response> {
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
  const gone = new AbortController();

  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const key = eventLogKey(streamId);
      const deadline = Date.now() + EVENT_LOG_TTL_MS;
      // The first pass serves what the ownership check read.
      let read: LoggedEvent[] | undefined = logged.slice(last + 1);
      try {
        while (!gone.signal.aborted && Date.now() < deadline) {
          const events = read ?? (await store.range<LoggedEvent>(key, last + 1));
          read = undefined;
          for (const event of events) {
            if (event.done) return controller.close();
            last += 1;
            const data = JSON.stringify(event.message);
            controller.enqueue(encoder.encode(`event: message\nid: ${eventId(streamId, last)}\ndata: ${data}\n\n`));
          }
          // The log is re-read when this instance appends to it (at once) or at the store's watch tick.
          await store.watch([key], anyTick, { signal: gone.signal, timeoutMs: POLL_MS });
          if (events.length === 0) controller.enqueue(encoder.encode(': keep-alive\n\n'));
        }
        controller.close();
      } catch {
        /* the client went away or the store failed: the client may resume again from its last id */
      }
    },
    cancel() {
      gone.abort();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
