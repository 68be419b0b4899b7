/**
 * The bytes a mounted server may send us, counted as they arrive: a `fetch` for the client transport whose
 * response bodies error past `maxBytes`. A JSON body is one reply and is bounded whole; an SSE stream may
 * legitimately carry many progress notifications over a long call, so each of its events is bounded, not the
 * stream (an event ends at a blank line, HTML Living Standard §9.2.6). The stream is cut at the byte that
 * passes the bound, so nothing past it is held in memory.
 */

import { EVENT_STREAM } from '../protocol/headers.js';

const CR = 0x0d;
const LF = 0x0a;

/** A reply over the bound; the text names the mount's setting, for the caller and the operator alike. */
export class ReplyTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`the reply exceeded ${maxBytes} bytes (maxReplyBytes in MCP_MOUNTS)`);
    this.name = 'ReplyTooLarge';
  }
}

/** `base` with every response body bounded; `onBreach` hears of the first body cut, once per body. */
export function boundedFetch(maxBytes: number, onBreach: (error: ReplyTooLarge) => void, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body) return response;
    const breach = () => {
      const error = new ReplyTooLarge(maxBytes);
      onBreach(error);
      return error;
    };
    const stream = response.headers.get('content-type')?.toLowerCase().startsWith(EVENT_STREAM);
    const bounded = new Response(response.body.pipeThrough(stream ? boundEachEvent(maxBytes, breach) : boundWhole(maxBytes, breach)), response);
    // The transport checks redirects against the URL that answered.
    Object.defineProperty(bounded, 'url', { value: response.url });
    return bounded;
  };
}

function boundWhole(maxBytes: number, breach: () => ReplyTooLarge): TransformStream<Uint8Array, Uint8Array> {
  let bytes = 0;
  return new TransformStream({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) controller.error(breach());
      else controller.enqueue(chunk);
    },
  });
}

/** Counts the bytes of the event under way (line ends excluded); a blank line (LF, CR or CRLF) starts the next. */
function boundEachEvent(maxBytes: number, breach: () => ReplyTooLarge): TransformStream<Uint8Array, Uint8Array> {
  let event = 0;
  let lineEmpty = true;
  let afterCr = false;
  return new TransformStream({
    transform(chunk, controller) {
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i]!;
        if (byte === LF && afterCr) {
          afterCr = false;
          continue;
        }
        afterCr = byte === CR;
        if (byte === LF || byte === CR) {
          if (lineEmpty) event = 0;
          lineEmpty = true;
        } else {
          lineEmpty = false;
          if (++event > maxBytes) return controller.error(breach());
        }
      }
      controller.enqueue(chunk);
    },
  });
}
