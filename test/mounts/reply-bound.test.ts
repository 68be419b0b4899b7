/**
 * The counting fetch a mount's transport reads through (lib/mounts/reply-bound.ts): a JSON body is bounded whole;
 * an SSE stream is bounded per event, an event ending at a blank line written with LF, CRLF or CR, even when the
 * line ends are split across chunks. The bodies come from a fetch that answers from memory, so each case can
 * choose where the chunks break.
 */

import { describe, expect, test } from 'vitest';
import { ReplyTooDeep, ReplyTooLarge, boundedFetch, type ReplyBreach } from '../../lib/mounts/reply-bound.js';

const encoder = new TextEncoder();

/** A fetch that answers with `chunks` as the body, under `contentType`. */
function answering(contentType: string, chunks: string[]): typeof fetch {
  return async () => new Response(new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  }), { headers: { 'content-type': contentType } });
}

async function read(contentType: string, chunks: string[], maxBytes: number, maxDepth?: number) {
  const breaches: ReplyBreach[] = [];
  const response = await boundedFetch(maxBytes, (error) => void breaches.push(error), answering(contentType, chunks), maxDepth)('http://mount.test/mcp');
  const text = await response.text().then((t) => t, (error: unknown) => error);
  return { text, breaches };
}

describe('a JSON body', () => {
  test('within the bound is read unchanged', async () => {
    expect(await read('application/json', ['{"a":', '1}'], 7)).toEqual({ text: '{"a":1}', breaches: [] });
  });

  test('one byte over the bound fails the read with the bound, once', async () => {
    const { text, breaches } = await read('application/json', ['{"a":', '12}'], 7);
    expect(text).toBeInstanceOf(ReplyTooLarge);
    expect((text as Error).message).toBe('the reply exceeded 7 bytes (maxReplyBytes in MCP_MOUNTS)');
    expect(breaches).toHaveLength(1);
  });
});

describe('an SSE stream', () => {
  test.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('many events each within the bound pass, though the stream is longer (%s line ends)', async (_name, eol) => {
    const event = `data: 12345${eol}${eol}`;
    const { text, breaches } = await read('text/event-stream; charset=utf-8', Array(10).fill(event), 11);
    expect(text).toBe(event.repeat(10));
    expect(breaches).toEqual([]);
  });

  test('a blank line split across chunks still ends the event', async () => {
    const { text, breaches } = await read('text/event-stream', ['data: 12345\r', '\n', '\r', '\ndata: 67890\r\n\r\n'], 11);
    expect(text).toBe('data: 12345\r\n\r\ndata: 67890\r\n\r\n');
    expect(breaches).toEqual([]);
  });

  test('an event of several lines counts all of them', async () => {
    const { text } = await read('text/event-stream', ['data: 12345\ndata: 12345\n\n'], 11);
    expect(text).toBeInstanceOf(ReplyTooLarge);
  });

  test('an event that never ends fails the read at the bound', async () => {
    const { text, breaches } = await read('text/event-stream', ['data: ', ...Array(100).fill('x'.repeat(100))], 1_000);
    expect(text).toBeInstanceOf(ReplyTooLarge);
    expect(breaches).toHaveLength(1);
  });
});

describe('the nesting of a reply\'s JSON (MCP_MAX_JSON_DEPTH)', () => {
  test('a body nesting one level past the bound fails the read with the bound, once; at the bound it passes', async () => {
    const { text, breaches } = await read('application/json', ['{"a":[[', '1]]}'], 1_000, 2);
    expect(text).toBeInstanceOf(ReplyTooDeep);
    expect((text as Error).message).toBe("the reply's JSON nests deeper than 2 levels (MCP_MAX_JSON_DEPTH)");
    expect(breaches).toHaveLength(1);
    expect(await read('application/json', ['{"a":[1]}'], 1_000, 2)).toEqual({ text: '{"a":[1]}', breaches: [] });
  });

  test('brackets inside strings, escaped quotes included, are text, not nesting', async () => {
    const body = '{"text":"[[[{{{ \\"[[[\\" \\\\"}';
    expect(JSON.parse(body)).toEqual({ text: '[[[{{{ "[[[" \\' });
    expect(await read('application/json', [body], 1_000, 1)).toEqual({ text: body, breaches: [] });
  });

  test('each SSE event is counted on its own, its data lines only', async () => {
    const event = 'id: [[[[\ndata: {"a":[1]}\n\n';
    expect(await read('text/event-stream', Array(5).fill(event), 1_000, 2)).toEqual({ text: event.repeat(5), breaches: [] });
    const { text } = await read('text/event-stream', [event, 'data: {"a":[[1]]}\n\n'], 1_000, 2);
    expect(text).toBeInstanceOf(ReplyTooDeep);
  });
});
