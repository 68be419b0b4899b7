/**
 * The bytes a mounted server may send us, counted as they arrive: a `fetch` for the client transport whose
 * response bodies error past `maxBytes`. A JSON body is one reply and is bounded whole; an SSE stream may
 * legitimately carry many progress notifications over a long call, so each of its events is bounded, not the
 * stream (an event ends at a blank line, HTML Living Standard §9.2.6). The stream is cut at the byte that
 * passes the bound, so nothing past it is held in memory.
 *
 * The nesting of each reply's JSON (a body, an event's data) is counted on the same bytes, against the request
 * body's bound (MCP_MAX_JSON_DEPTH): the client parses any depth, but a result 5,000 levels deep overflows the
 * stack of whatever copies or serialises it next (our own reply to the caller). Bracket counting outside strings
 * is exact for valid JSON and an upper bound for anything else.
 */

import { DEFAULT_REQUEST_BOUNDS } from '../http/bounds.js';
import { EVENT_STREAM } from '../protocol/headers.js';

const CR = 0x0d;
const LF = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
/** The first letter of an SSE `data` field: the only lines whose bytes are JSON. */
const D = 0x64;

/** A reply over the bound; the text names the mount's setting, for the caller and the operator alike. */
export class ReplyTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`the reply exceeded ${maxBytes} bytes (maxReplyBytes in MCP_MOUNTS)`);
    this.name = 'ReplyTooLarge';
  }
}

/** A reply whose JSON nests past MCP_MAX_JSON_DEPTH. */
export class ReplyTooDeep extends Error {
  constructor(maxDepth: number) {
    super(`the reply's JSON nests deeper than ${maxDepth} levels (MCP_MAX_JSON_DEPTH)`);
    this.name = 'ReplyTooDeep';
  }
}

/** A reply past one of the bounds. */
export type ReplyBreach = ReplyTooLarge | ReplyTooDeep;

/** `base` with every response body bounded; `onBreach` hears of the first body cut, once per body. */
export function boundedFetch(
  maxBytes: number, onBreach: (error: ReplyBreach) => void, base: typeof fetch = fetch, maxDepth: number = DEFAULT_REQUEST_BOUNDS.maxJsonDepth,
): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body) return response;
    let breached = false;
    const breach = (error: ReplyBreach) => {
      if (!breached) onBreach(error);
      breached = true;
      return error;
    };
    const tooLarge = () => breach(new ReplyTooLarge(maxBytes));
    const tooDeep = () => breach(new ReplyTooDeep(maxDepth));
    const stream = response.headers.get('content-type')?.toLowerCase().startsWith(EVENT_STREAM);
    const bounded = new Response(response.body.pipeThrough(stream
      ? boundEachEvent(maxBytes, maxDepth, tooLarge, tooDeep)
      : boundWhole(maxBytes, maxDepth, tooLarge, tooDeep)), response);
    // The transport checks redirects against the URL that answered.
    Object.defineProperty(bounded, 'url', { value: response.url });
    return bounded;
  };
}

/** Nesting of JSON read a byte at a time: true once it passes `maxDepth`. */
class Nesting {
  #depth = 0;
  #inString = false;
  #escaped = false;

  constructor(readonly maxDepth: number) {}

  /** Reads one byte; true when the JSON now nests past the bound. */
  read(byte: number): boolean {
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (byte === BACKSLASH) this.#escaped = true;
      else if (byte === QUOTE) this.#inString = false;
      return false;
    }
    if (byte === QUOTE) this.#inString = true;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) return ++this.#depth > this.maxDepth;
    else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && this.#depth > 0) this.#depth--;
    return false;
  }

  reset(): void {
    this.#depth = 0;
    this.#inString = false;
    this.#escaped = false;
  }
}

function boundWhole(maxBytes: number, maxDepth: number, tooLarge: () => ReplyBreach, tooDeep: () => ReplyBreach): TransformStream<Uint8Array, Uint8Array> {
  let bytes = 0;
  const nesting = new Nesting(maxDepth);
  return new TransformStream({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      if (bytes > maxBytes) return controller.error(tooLarge());
      for (let i = 0; i < chunk.length; i++) if (nesting.read(chunk[i]!)) return controller.error(tooDeep());
      controller.enqueue(chunk);
    },
  });
}

/**
 * Counts the bytes of the event under way (line ends excluded) and the nesting of its data lines' JSON; a blank
 * line (LF, CR or CRLF) starts the next event.
 */
function boundEachEvent(maxBytes: number, maxDepth: number, tooLarge: () => ReplyBreach, tooDeep: () => ReplyBreach): TransformStream<Uint8Array, Uint8Array> {
  let event = 0;
  let lineEmpty = true;
  let afterCr = false;
  let dataLine = false;
  const nesting = new Nesting(maxDepth);
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
          if (lineEmpty) {
            event = 0;
            nesting.reset();
          }
          lineEmpty = true;
        } else {
          if (lineEmpty) dataLine = byte === D;
          lineEmpty = false;
          if (++event > maxBytes) return controller.error(tooLarge());
          if (dataLine && nesting.read(byte)) return controller.error(tooDeep());
        }
      }
      controller.enqueue(chunk);
    },
  });
}
