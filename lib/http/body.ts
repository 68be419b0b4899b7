/** Reads a POST body with a size cap (413) and parses it once (400/-32700 when it is not JSON). */

import { PARSE_ERROR } from '../protocol/errors.js';
import { errorReply, refuse } from './replies.js';

/** Vercel caps request bodies at 4.5 MB; we refuse a little earlier with a JSON-RPC body. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

function tooLarge(maxBytes: number): Response {
  return refuse(413, `Payload Too Large: the body exceeds ${maxBytes} bytes.`);
}

export async function readJsonBody(request: Request, maxBytes: number): Promise<{ value: unknown } | Response> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) return tooLarge(maxBytes);
  // HTTP framing holds a body to its declared length, so it is read whole, the way Node adapters read fastest;
  // a body of unknown length (chunked) is counted as it streams.
  const text = Number.isInteger(declared) ? await request.text() : await readCapped(request, maxBytes);
  if (text === undefined) return tooLarge(maxBytes);
  try {
    return { value: JSON.parse(text) };
  } catch {
    return errorReply(400, { code: PARSE_ERROR, message: 'Parse error: the body is not valid JSON.' });
  }
}

async function readCapped(request: Request, maxBytes: number): Promise<string | undefined> {
  if (!request.body) return '';
  const reader = request.body.getReader();
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
