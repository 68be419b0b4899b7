/**
 * On the 2025 wire a cancelled request's reply stream is ours to close. The official client cancels a request by
 * POSTing `notifications/cancelled` and then stops listening, but leaves the request's SSE stream (its POST) open
 * until the mounted server ends it; a server that never does would hold one connection of ours per cancelled call.
 * Here each request the client sends gets a signal of its own (the transport's `requestSignal`, which the client
 * passes only on the 2026-07-28 wire, where aborting the stream is the cancellation), and the signal is aborted as
 * soon as that request's `notifications/cancelled` has gone out: the transport then ends the stream quietly, as an
 * intentional abort. A request's signal is dropped with its response, so a long-lived connection keeps none.
 */

import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { isNotification, isRequest, isRequestId, isResponse, type RequestId } from '../protocol/jsonrpc.js';

type Transport = Pick<StreamableHTTPClientTransport, 'send' | 'onmessage'>;

const CANCELLED = 'notifications/cancelled';

/** Makes `transport` close the stream of each request it cancels; call before the client connects. */
export function closeCancelledStreams(transport: Transport): void {
  const open = new Map<RequestId, AbortController>();
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    if (isRequest(message) && options?.requestSignal === undefined) {
      const { id } = message;
      const controller = new AbortController();
      open.set(id, controller);
      return send(message, { ...options, requestSignal: controller.signal }).catch((error: unknown) => {
        open.delete(id);
        throw error;
      });
    }
    const cancelled = cancelledId(message);
    if (cancelled === undefined) return send(message, options);
    try {
      await send(message, options);
    } finally {
      // Sent or not, the request is over for us: its stream is closed from our side.
      open.get(cancelled)?.abort();
      open.delete(cancelled);
    }
  };
  // The client sets onmessage when it connects: a response settles its request, whose signal is then dropped.
  let handler: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set(inner: Transport['onmessage']) {
      handler = inner && ((message) => {
        if (isResponse(message) && isRequestId(message.id)) open.delete(message.id);
        inner(message);
      });
    },
  });
}

function cancelledId(message: unknown): RequestId | undefined {
  if (!isNotification(message) || message.method !== CANCELLED) return undefined;
  const id = message.params?.requestId;
  return isRequestId(id) ? id : undefined;
}
