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
 * and logs are advisory); the call's reply is always kept, so a client that resumes still gets its answer. What all
 * streams of an instance keep in its memory is bounded too (MCP_MAX_STREAM_LOG_MEMORY_BYTES, `LogMemory`): a stream
 * whose next event would pass that stops logging the same way, with a log line, and a client that resumes it gets
 * the events kept before, then the reply. While in memory an event is kept as the JSON text already made for the
 * wire, one flat string, rather than the message's objects and the rope of its text (issue 48).
 */

import { isResponse, type JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { Store } from '../store/types.js';
import { EVENT_STREAM } from '../protocol/headers.js';
import { SharedTick } from '../shared-tick.js';
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
  /** What every stream of the instance keeps in its memory (MCP_MAX_STREAM_LOG_MEMORY_BYTES). */
  memory: LogMemory;
}

/**
 * The bytes of events all streams of an instance hold in its memory for resumption, at most `maxBytes`: one per
 * handler (api/mcp.ts), shared by its streams. A stream's bytes come back once they are in the store, or once its
 * call ended without needing them.
 */
export class LogMemory {
  #held = 0;

  constructor(readonly maxBytes: number) {}

  get held(): number {
    return this.#held;
  }

  /** Holds `bytes` more when they fit; a call's reply (`always`) is held in any case. */
  take(bytes: number, always = false): boolean {
    if (!always && this.#held + bytes > this.maxBytes) return false;
    this.#held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#held -= bytes;
  }
}

const overLog = createCountedWarning((bound, count) =>
  `stopped logging ${count} stream(s) at MCP_MAX_STREAM_LOG_BYTES=${bound}; their later notifications were sent live only`);
const overMemory = createCountedWarning((bound, count) =>
  `stopped logging ${count} stream(s) at MCP_MAX_STREAM_LOG_MEMORY_BYTES=${bound} (what all streams of this instance keep `
  + 'in memory); their later notifications were sent live only, and a client that resumes one misses them');

/** One timer writes every open stream's keep-alive (lib/shared-tick.ts). */
const KEEP_ALIVES = new SharedTick<SseStream>(KEEP_ALIVE_MS, (stream) => stream.keepAlive());

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

/** The stream's source: one object, not a closure per method (issue 48). */
class Source implements UnderlyingDefaultSource<Uint8Array> {
  constructor(private readonly stream: SseStream, private readonly onClientGone: (() => void) | undefined) {}

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.stream.controller = controller;
  }

  cancel(): void {
    this.stream.clientGone();
    this.onClientGone?.();
  }
}

export class SseStream {
  readonly response: Response;
  /** Set by the stream's source as it starts. */
  controller!: ReadableStreamDefaultController<Uint8Array>;
  #open = true;
  #seq = 0;
  /**
   * Events not yet in the store, oldest first: a message as its JSON text until a client may need it (then parsed
   * once, as it goes to the store), the log's opening and end as entries.
   */
  #pending: Array<LoggedEvent | string> = [];
  /** Bytes of `#pending` held in the instance's LogMemory. */
  #heldBytes = 0;
  /** True once a client may come back for the rest: from then on every event goes to the store. */
  #needed = false;
  /** Bytes of events logged so far, and whether the bound has been passed. */
  #loggedBytes = 0;
  #full = false;
  #flushing: Promise<void> | undefined;
  readonly #log?: EventLog;

  constructor(options: { log?: EventLog; onClientGone?: () => void; headers?: Record<string, string> }) {
    this.#log = options.log;
    const stream = new ReadableStream<Uint8Array>(new Source(this, options.onClientGone));
    KEEP_ALIVES.join(this);
    this.response = new Response(stream, { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
  }

  /** The keep-alive tick's write: a comment that keeps proxies from dropping a quiet stream. */
  keepAlive(): void {
    this.#write(': keep-alive\n\n');
  }

  /** The client went away (its stream was cancelled): the call's events go on being recorded for resumption. */
  clientGone(): void {
    this.#stop();
    this.#need();
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
    this.#append(this.#needed ? { message } : data);
    this.#write(`event: message\nid: ${eventId(this.#log.streamId, seq)}\ndata: ${data}\n\n`);
  }

  /**
   * Whether the log keeps this event: the reply always, anything else while the log is under its bound and, while
   * the event would wait in memory, the instance's memory for logs has room for it.
   */
  #keeps(message: JsonRpcMessage, data: string): boolean {
    const log = this.#log!;
    const reply = isResponse(message);
    if (this.#full && !reply) return false;
    // Counted as UTF-8, what the store keeps, without encoding it (one allocation less per event).
    const bytes = Buffer.byteLength(data);
    if (!reply && this.#loggedBytes + bytes > log.maxBytes) return this.#stopLogging(overLog, log.maxBytes);
    if (!this.#needed) {
      if (!log.memory.take(bytes, reply)) return this.#stopLogging(overMemory, log.memory.maxBytes);
      this.#heldBytes += bytes;
    }
    if (!reply) this.#loggedBytes += bytes;
    return true;
  }

  #stopLogging(warning: typeof overLog, bound: number): false {
    this.#full = true;
    warning.note(String(bound));
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
    void this.#drained().then(() => this.controller.close());
  }

  /** Ends the call's events: marks the log complete (when one is kept) and closes the stream. */
  async finish(): Promise<void> {
    if (this.#log) this.#append({ done: true });
    await this.#drained();
    // Delivered whole: nobody will read what waited in memory.
    if (!this.#needed) this.#release();
    if (!this.#open) return;
    this.#stop();
    this.controller.close();
  }

  /** Gives the instance back what this stream held in memory, and lets go of it. */
  #release(): void {
    this.#log?.memory.give(this.#heldBytes);
    this.#heldBytes = 0;
    this.#pending = [];
  }

  #append(event: LoggedEvent | string): void {
    this.#pending.push(event);
    this.#flush();
  }

  #need(): void {
    if (!this.#log || this.#needed) return;
    this.#needed = true;
    // What waited in memory goes to the store now, as the entries the store keeps.
    const waiting = this.#pending;
    this.#pending = waiting.map(toLogged);
    this.#log.memory.give(this.#heldBytes);
    this.#heldBytes = 0;
    this.#flush();
  }

  /** Writes what is pending, one batch per round trip, until nothing is. */
  #flush(): void {
    if (!this.#needed || this.#flushing) return;
    const { store, streamId } = this.#log!;
    this.#flushing = (async () => {
      while (this.#pending.length) {
        const batch = this.#pending.splice(0) as LoggedEvent[];
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
      this.controller.enqueue(encoder.encode(text));
    } catch {
      this.#stop();
    }
  }

  #stop(): void {
    this.#open = false;
    KEEP_ALIVES.leave(this);
  }
}

const toLogged = (event: LoggedEvent | string): LoggedEvent => (typeof event === 'string' ? { message: JSON.parse(event) as JsonRpcMessage } : event);
