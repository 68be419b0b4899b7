/**
 * A streamed reply read push-style (lib/agent/upstream/push-read.ts, issue 48): its events reach the format's handler
 * from the socket's data handler, and the read is one promise that settles once. Every bound of the pulled read
 * holds: the silence (AGENT_TIMEOUT_MS), the cap on bytes, the caller's abort; what the handler throws is the read's
 * failure as it is, with the connection closed; a handler that has what it needs lets the rest drain, and the
 * connection goes back to the pool. Against a real node:http upstream on loopback.
 */

import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { postUpstream, type UpstreamTarget } from '../../../lib/agent/upstream/request.js';
import { AgentError } from '../../../lib/agent/types.js';

/** What the upstream does, by the request's `script`: events written `every` ms apart, then maybe a silence. */
interface Script {
  events: number;
  every: number;
  /** After the events: end ('end'), write [DONE] then more for `tail` ms before ending ('done'), or go silent. */
  then: 'end' | 'done' | 'silence';
  tail?: number;
  /** Instead of events: these bytes (base64), written `every` ms apart, then the end. */
  parts?: string[];
}

const ports: number[] = [];
const closed: string[] = [];
let base: string;
const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    ports.push(req.socket.remotePort!);
    const { id, script } = JSON.parse(body) as { id: string; script: Script };
    res.on('close', () => void (res.writableFinished || closed.push(id)));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    play(res, script);
  });
});

function play(res: ServerResponse, { events, every, then, tail = 0, parts }: Script): void {
  if (parts) {
    parts.forEach((part, i) => setTimeout(() => res.write(Buffer.from(part, 'base64')), i * every));
    return void setTimeout(() => res.end(), parts.length * every);
  }
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    if (sent < events) return void res.write(`data: ${JSON.stringify({ n: sent++ })}\n\n`);
    clearInterval(timer);
    if (then === 'end') res.end();
    else if (then === 'done') {
      res.write('data: [DONE]\n\n');
      // Trailing bytes the reader does not want: drained, then the reply ends and its connection is free.
      setTimeout(() => res.end('data: {"n":"after"}\n\n'), tail);
    }
  }, every);
}

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const target = (options: Partial<UpstreamTarget> = {}): UpstreamTarget =>
  ({ agentId: 'pushed', url: base, timeoutMs: 5_000, maxReplyBytes: 1 << 20, ...options });

async function read(script: Script, options: Partial<UpstreamTarget> = {}, handler?: (data: string) => boolean | void, signal = new AbortController().signal) {
  const id = crypto.randomUUID();
  const seen: string[] = [];
  const upstream = await postUpstream(target(options), { id, script }, signal);
  const outcome = await upstream.readEvents((data) => {
    seen.push(data);
    return handler?.(data);
  }).then(() => 'ended', (error: unknown) => error);
  return { id, seen, outcome };
}

test('each event reaches the handler in order, and the read settles once the reply ends', async () => {
  const { seen, outcome } = await read({ events: 5, every: 5, then: 'end' });
  expect(outcome).toBe('ended');
  expect(seen).toEqual([0, 1, 2, 3, 4].map((n) => JSON.stringify({ n })));
});

test('a handler that has what it needs settles the read; the rest is drained and the connection goes back to the pool', async () => {
  const first = await read({ events: 2, every: 5, then: 'done', tail: 100 }, {}, (data) => data === '[DONE]');
  expect(first.outcome).toBe('ended');
  // Nothing after [DONE] reaches the handler, though the reply went on.
  expect(first.seen.at(-1)).toBe('[DONE]');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const second = await read({ events: 1, every: 5, then: 'end' });
  expect(second.outcome).toBe('ended');
  expect(closed).not.toContain(first.id);
  expect(ports.at(-1)).toBe(ports.at(-2));
});

test("what the handler throws is the read's failure as it is, and the upstream sees its connection closed", async () => {
  const mine = new AgentError('Agent pushed: the handler refused the event.');
  const { id, seen, outcome } = await read({ events: 1_000, every: 10, then: 'end' }, {}, (data) => {
    if (data === JSON.stringify({ n: 2 })) throw mine;
  });
  expect(outcome).toBe(mine);
  expect(seen).toHaveLength(3);
  await expect.poll(() => closed).toContain(id);
});

test('an upstream writing more often than AGENT_TIMEOUT_MS is read to its end, however long it writes', async () => {
  const { outcome, seen } = await read({ events: 12, every: 60, then: 'end' }, { timeoutMs: 250 });
  expect(outcome).toBe('ended');
  expect(seen).toHaveLength(12);
});

test('a silence of AGENT_TIMEOUT_MS mid-stream ends the read with the timeout error, and the connection', async () => {
  const { id, seen, outcome } = await read({ events: 4, every: 60, then: 'silence' }, { timeoutMs: 250 });
  expect(seen).toHaveLength(4);
  expect(outcome).toBeInstanceOf(AgentError);
  expect((outcome as AgentError).message).toBe('Agent pushed sent nothing for 250 ms (AGENT_TIMEOUT_MS).');
  await expect.poll(() => closed).toContain(id);
});

test('a reply past AGENT_MAX_REPLY_BYTES fails with the cap error, counted on the bytes read', async () => {
  const { id, seen, outcome } = await read({ events: 1_000, every: 2, then: 'end' }, { maxReplyBytes: 200 });
  expect((outcome as AgentError).message).toBe("Agent pushed: the agent's reply exceeded 200 bytes.");
  // ~14 bytes an event: the handler saw what fitted under the cap, never more.
  expect(seen.length).toBeLessThanOrEqual(200 / 14);
  await expect.poll(() => closed).toContain(id);
});

test("the caller's abort mid-stream ends the read as cancelled, and the connection", async () => {
  const controller = new AbortController();
  const { id, seen, outcome } = await read({ events: 1_000, every: 10, then: 'end' }, {}, (data) => {
    if (data === JSON.stringify({ n: 3 })) setImmediate(() => controller.abort());
  }, controller.signal);
  expect((outcome as AgentError).message).toBe('Agent pushed: the call was cancelled.');
  expect(seen.length).toBeLessThan(10);
  await expect.poll(() => closed).toContain(id);
});

test("a handler that abandons the call for a bound of its own (too many tool calls) fails the read with that bound's error", async () => {
  const id = crypto.randomUUID();
  const mine = new AgentError('Agent pushed asked for too much.');
  const upstream = await postUpstream(target(), { id, script: { events: 1_000, every: 10, then: 'end' } }, new AbortController().signal);
  const outcome = await upstream.readEvents((data) => {
    if (data === JSON.stringify({ n: 1 })) throw upstream.abandon(mine);
  }).catch((error: unknown) => error);
  expect(outcome).toBe(mine);
  await expect.poll(() => closed).toContain(id);
});

test("UTF-8 is read as TextDecoder reads it: a character split between chunks is whole, the stream's BOM dropped, a bad byte U+FFFD", async () => {
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('data: {"n":"é→😀"}\n\ndata: '), Buffer.from([0xff]), Buffer.from('\n\n')]);
  // Cut inside the BOM, inside é, and inside the emoji.
  const cuts = [1, 3 + 13, 3 + 18, bytes.length];
  const parts = cuts.map((end, i) => bytes.subarray(i ? cuts[i - 1] : 0, end).toString('base64'));
  const { seen, outcome } = await read({ events: 0, every: 20, then: 'end', parts });
  expect(outcome).toBe('ended');
  expect(seen).toEqual(['{"n":"é→😀"}', '\ufffd']);
});

test('a reply read only after it ended: its events are pushed, and a handler abandoning the call among them fails the read with its error', async () => {
  const events = [0, 1, 2, 3].map((n) => `data: ${JSON.stringify({ n })}\n\n`);
  const parts = [Buffer.from(events.join('')).toString('base64')];
  const id = crypto.randomUUID();
  const upstream = await postUpstream(target(), { id, script: { events: 0, every: 0, then: 'end', parts } }, new AbortController().signal);
  // The whole reply, and its end, arrive before the read begins.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const mine = new AgentError('Agent pushed asked for too much.');
  const seen: string[] = [];
  const outcome = await upstream.readEvents((data) => {
    seen.push(data);
    if (seen.length === 2) throw upstream.abandon(mine);
  }).catch((error: unknown) => error);
  expect(outcome).toBe(mine);
  expect(seen).toHaveLength(2);
});
