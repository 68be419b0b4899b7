/**
 * Reads a POST body once, within its bounds: a size cap (413), then JSON (400/-32700), then a nesting depth
 * (400/-32600), so no deeper value ever reaches code that copies or walks it recursively (structured clones,
 * canonical JSON). A client that goes away mid-upload is not a server fault: its request ends here quietly.
 */

import { INVALID_REQUEST, PARSE_ERROR } from '../protocol/errors.js';
import type { RequestBounds } from './bounds.js';
import { errorReply, refuse } from './replies.js';

function tooLarge(maxBytes: number): Response {
  return refuse(413, `Payload Too Large: the body exceeds ${maxBytes} bytes.`);
}

export async function readJsonBody(
  request: Request,
  { maxBodyBytes, maxJsonDepth }: Pick<RequestBounds, 'maxBodyBytes' | 'maxJsonDepth'>,
): Promise<{ value: unknown } | Response> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBodyBytes) return tooLarge(maxBodyBytes);
  let text: string | undefined;
  try {
    // HTTP framing holds a body to its declared length, so it is read whole, the way Node adapters read fastest;
    // a body of unknown length (chunked) is counted as it streams.
    text = Number.isInteger(declared) ? await request.text() : await readCappedText(request, maxBodyBytes);
  } catch {
    // The connection closed before the body ended. Nobody is left to read a reply; this one only ends the request.
    return refuse(400, 'Bad Request: the body ended before it was complete.');
  }
  if (text === undefined) return tooLarge(maxBodyBytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return errorReply(400, { code: PARSE_ERROR, message: 'Parse error: the body is not valid JSON.' });
  }
  if (nestsDeeperThan(value, maxJsonDepth)) {
    return errorReply(400, { code: INVALID_REQUEST, message: `Invalid Request: the JSON nests deeper than ${maxJsonDepth} levels.` });
  }
  return { value };
}

/**
 * True when arrays and objects nest more than `levels` deep. JSON.parse itself copes with any depth; the walk
 * recurses at most `levels` frames, and strings are leaves, so a large text costs nothing here.
 */
export function nestsDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels === 0) return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  for (const child of children) if (nestsDeeperThan(child, levels - 1)) return true;
  return false;
}

/** A body as text, counted as it streams: undefined past `maxBytes` (the read is then abandoned); throws if the body breaks off. */
export async function readCappedText(message: Request | Response, maxBytes: number): Promise<string | undefined> {
  if (!message.body) return '';
  const reader = message.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
