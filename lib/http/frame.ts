/**
 * Frames a call's reply: one JSON object when the call finishes without sending anything first, otherwise an
 * SSE stream opened at the first notification or server request, with the reply as its last event. Every reply
 * says the protocol version it speaks (lib/http/protocol-version.ts).
 */

import type { JsonRpcMessage, JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { Outbound } from '../server/context.js';
import { keepAlive } from './keep-alive.js';
import { withProtocolVersion } from './protocol-version.js';
import { accepted, jsonReply } from './replies.js';
import { SseStream, type EventLog } from './sse.js';

export interface FrameOptions {
  /** The version the reply speaks (MCP-Protocol-Version). */
  version: string;
  run(outbound: Outbound): Promise<JsonRpcResponse | undefined>;
  statusOf(reply: JsonRpcResponse): number;
  /** Extra headers for a single JSON reply (e.g. the step-up challenge of a 403). */
  headersOf?(reply: JsonRpcResponse): Record<string, string> | undefined;
  /** Set for 2025-11-25 calls of a recognised caller: events get ids and are logged for resumption. */
  log?: EventLog;
  /** A request gets a reply or, when it has none (it was cancelled), a stream closed without one; else 202. */
  isRequest: boolean;
  onClientGone(): void;
}

export function frameCall(options: FrameOptions): Promise<Response> {
  const framing = options.log ? new LoggedFraming(options) : new Framing(options);
  return framing.response;
}

/**
 * One call's framing: the outbound its work writes to and the reply's way out, one object with methods rather than a
 * closure each (issue 48: every streamed call in flight holds it).
 */
class Framing implements Outbound {
  readonly response: Promise<Response>;
  #resolve!: (response: Response) => void;
  #reject!: (error: unknown) => void;
  #sse: SseStream | undefined;
  #finished!: () => void;
  /** Settles when the call has finished and its stream is ended; made before the call starts, which may open the stream. */
  readonly #done = new Promise<void>((finished) => (this.#finished = finished));

  constructor(protected readonly options: FrameOptions) {
    this.response = new Promise<Response>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    void this.#run().finally(this.#finished);
  }

  write(message: JsonRpcMessage): void {
    this.open().send(message);
  }

  protected open(): SseStream {
    if (!this.#sse) {
      const { log, onClientGone, version } = this.options;
      const sse = (this.#sse = new SseStream({ log, onClientGone }));
      sse.prime();
      this.#resolve(withProtocolVersion(sse.response, version));
      // The stream may end (closed early, the client gone) before the call does; the call must still finish.
      keepAlive(this.#done);
    }
    return this.#sse;
  }

  async #run(): Promise<void> {
    const { options } = this;
    let reply: JsonRpcResponse | undefined;
    try {
      reply = await options.run(this);
    } catch (error) {
      if (!this.#sse) return this.#reject(error);
      // The stream is already the reply: end it rather than leave the client waiting on it.
      console.error('[agent-mcp] a streamed call failed:', error);
      return this.#sse.finish();
    }
    const sse = this.#sse;
    if (sse) {
      if (reply) sse.send(reply);
      await sse.finish();
    } else if (reply) {
      this.#resolve(jsonReply(reply, options.statusOf(reply), options.headersOf?.(reply), options.version));
    } else if (options.isRequest) {
      await this.open().finish();
    } else {
      this.#resolve(withProtocolVersion(accepted(), options.version));
    }
  }
}

/** Closing early is only offered when the client can come back for the rest (a logged stream). */
class LoggedFraming extends Framing {
  closeStream(): void {
    this.open().detach();
  }
}
