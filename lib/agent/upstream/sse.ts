/**
 * The `data` payloads of an SSE body, for the adapters whose upstreams stream. Bytes are counted where they are
 * read (request.ts), so an event that never ends, or a flood of events that carry nothing, stops at the reply cap
 * like any other body.
 *
 * eventsource-parser (6 KB) is in the start file: loaded through import() with the first streamed reply, it cost
 * that reply 2–3 ms of the module loader. The MCP SDK client of mounts has its own copy in its chunk
 * (scripts/dependency-copies.mjs), or esbuild would make the package a chunk that every cold start loads.
 */

import { createParser } from 'eventsource-parser';

export async function* sseData(chunks: AsyncIterable<string>): AsyncIterable<string> {
  const ready: string[] = [];
  const events = createParser({ onEvent: (event) => ready.push(event.data) });
  for await (const chunk of chunks) {
    events.feed(chunk);
    // One chunk can hold thousands of small events: taken as a batch, not shifted off one by one.
    for (const data of ready.splice(0)) yield data;
  }
}
