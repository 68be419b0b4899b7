/**
 * The `data` payloads of an SSE body, for the adapters whose upstreams stream. Bytes are counted where they are
 * read (request.ts), so an event that never ends, or a flood of events that carry nothing, stops at the reply cap
 * like any other body.
 */

let parser: typeof import('eventsource-parser') | undefined;

export async function* sseData(chunks: AsyncIterable<string>): AsyncIterable<string> {
  // Loaded with the first streamed reply rather than on every cold start, and kept: an import() of a module already
  // loaded still goes through the module loader (~2% of a proxied chat call's CPU).
  const { createParser } = (parser ??= await import('eventsource-parser'));
  const ready: string[] = [];
  const events = createParser({ onEvent: (event) => ready.push(event.data) });
  for await (const chunk of chunks) {
    events.feed(chunk);
    // One chunk can hold thousands of small events: taken as a batch, not shifted off one by one.
    for (const data of ready.splice(0)) yield data;
  }
}
