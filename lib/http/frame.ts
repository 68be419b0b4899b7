/**
 * Frames a call's reply: one JSON object when the call finishes without sending anything first, otherwise an
 * SSE stream opened at the first notification or server request, with the reply as its last event. Every reply
 * says the protocol version it speaks (lib/http/protocol-version.ts).
 */

import type { JsonRpcResponse } from '../protocol/jsonrpc.js';
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
  return new Promise<Response>((resolve, reject) => {
    let sse: SseStream | undefined;
    let finished!: () => void;
    const settled = new Promise<void>((done) => (finished = done));
    const open = (): SseStream => {
      if (!sse) {
        sse = new SseStream({ log: options.log, onClientGone: options.onClientGone });
        sse.prime();
        resolve(withProtocolVersion(sse.response, options.version));
        // The stream may end (closed early, the client gone) before the call does; the call must still finish.
        keepAlive(settled);
      }
      return sse;
    };
    // Closing early is only offered when the client can come back for the rest (a logged stream).
    const outbound: Outbound = {
      write: (message) => open().send(message),
      ...(options.log ? { closeStream: () => open().detach() } : {}),
    };
    void options.run(outbound).then(async (reply) => {
      if (sse) {
        if (reply) sse.send(reply);
        await sse.finish();
      } else if (reply) {
        resolve(jsonReply(reply, options.statusOf(reply), options.headersOf?.(reply), options.version));
      } else if (options.isRequest) {
        await open().finish();
      } else {
        resolve(withProtocolVersion(accepted(), options.version));
      }
    }, async (error: unknown) => {
      if (!sse) return reject(error);
      // The stream is already the reply: end it rather than leave the client waiting on it.
      console.error('[agent-mcp] a streamed call failed:', error);
      await sse.finish();
    }).finally(finished);
  });
}
