/**
 * One SSE response stream for one call. `X-Accel-Buffering: no` and keep-alive comments keep proxies from
 * holding or dropping it (2026-07-28 transports). With an event log (2025-11-25 SSE polling, SEP-1699) every
 * event gets an id, so a client whose stream closed resumes with GET + Last-Event-ID.
 *
 * The log is written only when a client can still need it: from the moment its stream closes before the call
 * ends (the server closed it early, or the client went away). Until then the events are kept in this
 * instance's memory, for the call's lifetime only; a stream that delivers the whole call writes nothing. From
 * then on events are coalesced: whatever arrives while a write is under way goes in the next one, one RPUSH of
 * every event plus its PEXPIRE, so the log costs at most two commands per event and usually fewer.
 *
 * The log keeps at most `maxBytes` of events (MCP_MAX_STREAM_LOG_BYTES), in memory and in the store alike: past
 * it a notification or request goes out live only, without an id, so a client that resumes misses it (progress
 * and logs are advisory); the call's reply is always kept, so a client that resumes still gets its answer.
 */

import { isResponse, type JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { Store } from '../store/types.js';
import { EVENT_STREAM } from '../protocol/headers.js';
import { createCountedWarning } from '../warn.js';

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': EVENT_STREAM,
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

export const KEEP_ALIVE_MS = 15_000;
/** How long a client may take to come back for the rest of a stream. */
export const EVENT_LOG_TTL_MS = 10 * 60_000;
/** The reconnection delay we ask of clients in the priming event. */
export const RETRY_MS = 500;

const encoder = new TextEncoder();

export interface EventLog {
  store: Store;
  streamId: string;
  /** Who may resume the stream: the caller's identity (lib/server/caller.ts). */
  owner: string;
  /** Most bytes of events kept (MCP_MAX_STREAM_LOG_BYTES); the reply is kept past it. */
  maxBytes: number;
}

const overLog = createCountedWarning((bound, count) =>
  `stopped logging ${count} stream(s) at MCP_MAX_STREAM_LOG_BYTES=${bound}; their later notifications were sent live only`);

export const eventLogKey = (streamId: string) => `sse:${streamId}`;
export const eventId = (streamId: string, seq: number) => `${streamId}_${seq}`;

/**
 * A log entry. Entry 0 opens the log (and names its owner); entry i carries the event with id `<stream>_i`;
 * `done` marks the end of the call's events.
 */
export interface LoggedEvent {
  owner?: string;
  message?: JsonRpcMessage;
  done?: true;
}

export class SseStream {
  readonly response: Response;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #open = true;
  #keepAlive: ReturnType<typeof setInterval>;
  #seq = 0;
  /** Events not yet in the store, oldest first. */
  #pending: LoggedEvent[] = [];
  /** True once a client may come back for the rest: from then on every event goes to the store. */
  #needed = false;
  /** Bytes of events logged so far, and whether the bound has been passed. */
  #loggedBytes = 0;
  #full = false;
  #flushing: Promise<void> | undefined;
  readonly #log?: EventLog;

  constructor(options: { log?: EventLog; onClientGone?: () => void; headers?: Record<string, string> }) {
    this.#log = options.log;
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        this.#stop();
        this.#need();
        options.onClientGone?.();
      },
    });
    this.#keepAlive = setInterval(() => this.#write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    this.response = new Response(stream, { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
  }

  /** The priming event: an id and empty data, with the reconnection delay (SEP-1699). */
  prime(): void {
    if (!this.#log) return;
    this.#append({ owner: this.#log.owner });
    this.#write(`id: ${eventId(this.#log.streamId, 0)}\nretry: ${RETRY_MS}\ndata: \n\n`);
  }

  send(message: JsonRpcMessage): void {
    const data = JSON.stringify(message);
    if (!this.#log || !this.#keeps(message, data)) return this.#write(`event: message\ndata: ${data}\n\n`);
    const seq = ++this.#seq;
    this.#append({ message });
    this.#write(`event: message\nid: ${eventId(this.#log.streamId, seq)}\ndata: ${data}\n\n`);
  }

  /** Whether the log keeps this event: the reply always, anything else while the log is under its bound. */
  #keeps(message: JsonRpcMessage, data: string): boolean {
    if (isResponse(message)) return true;
    if (this.#full) return false;
    // Counted as UTF-8, what the store keeps, without encoding it (one allocation less per event).
    const bytes = Buffer.byteLength(data);
    if (this.#loggedBytes + bytes <= this.#log!.maxBytes) {
      this.#loggedBytes += bytes;
      return true;
    }
    this.#full = true;
    overLog.note(String(this.#log!.maxBytes));
    return false;
  }

  /**
   * Closes the client's stream early; the call's events go on being recorded for resumption. The stream closes
   * once the log holds what was sent, so a client that comes straight back finds it.
   */
  detach(): void {
    if (!this.#open) return;
    this.#stop();
    this.#need();
    void this.#drained().then(() => this.#controller.close());
  }

  /** Ends the call's events: marks the log complete (when one is kept) and closes the stream. */
  async finish(): Promise<void> {
    if (this.#log) this.#append({ done: true });
    await this.#drained();
    if (!this.#open) return;
    this.#stop();
    this.#controller.close();
  }

  #append(event: LoggedEvent): void {
    this.#pending.push(event);
    this.#flush();
  }

  #need(): void {
    if (!this.#log || this.#needed) return;
    this.#needed = true;
    this.#flush();
  }

  /** Writes what is pending, one batch per round trip, until nothing is. */
  #flush(): void {
    if (!this.#needed || this.#flushing) return;
    const { store, streamId } = this.#log!;
    this.#flushing = (async () => {
      while (this.#pending.length) {
        const batch = this.#pending.splice(0);
        await store.append(eventLogKey(streamId), batch, EVENT_LOG_TTL_MS)
          .catch((error) => console.error('[agent-mcp] SSE event log write failed:', error));
      }
      this.#flushing = undefined;
    })();
  }

  async #drained(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  #write(text: string): void {
    if (!this.#open) return;
    try {
      this.#controller.enqueue(encoder.encode(text));
    } catch {
      this.#stop();
    }
  }

  #stop(): void {
    this.#open = false;
    clearInterval(this.#keepAlive);
  }
}
