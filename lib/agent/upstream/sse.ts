/**
 * The `data` payloads of an SSE body, for the adapters whose upstreams stream. Bytes are counted where they are
 * read (request.ts), so an event that never ends, or a flood of events that carry nothing, stops at the reply cap
 * like any other body.
 */

export async function* sseData(chunks: AsyncIterable<string>): AsyncIterable<string> {
  // Loaded with the first streamed reply rather than on every cold start.
  const { createParser } = await import('eventsource-parser');
  const ready: string[] = [];
  const parser = createParser({ onEvent: (event) => ready.push(event.data) });
  for await (const chunk of chunks) {
    parser.feed(chunk);
    // One chunk can hold thousands of small events: taken as a batch, not shifted off one by one.
    for (const data of ready.splice(0)) yield data;
  }
}
