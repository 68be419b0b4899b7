/**
 * An upstream request ends when its signal aborts, even after a garbage collection. When upstream calls went through
 * Node's fetch (undici), which follows the signal it is given through a Request it holds only weakly, a full
 * collection could take that Request and the abort then reached nothing (nodejs/node#55428, nodejs/undici#3644): the
 * call went on reading a reply nobody wanted, its connection open to the end. request.ts ends the read and closes the
 * connection itself, whatever client carries the request. Each case runs in its own process with --expose-gc against
 * the real test upstream.
 */

import { afterAll, beforeAll, expect, test } from 'vitest';
import { inOwnProcess } from '../../support/own-process.js';
import { startUpstream, type Upstream } from '../../support/upstream.js';

let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(() => upstream.stop());

/**
 * Starts a request for `message`, collects garbage, aborts it and reads on; what the read came to. With READ=none the
 * reply is taken and its body never read (as an adapter that rejects the reply's type leaves it).
 */
const SCRIPT = `
  const { postUpstream } = await import('./lib/agent/upstream/request.ts');
  const target = { agentId: 'slow', url: process.env.UPSTREAM_URL + '/v1/chat/completions', timeoutMs: 60000, maxReplyBytes: 8 << 20 };
  const controller = new AbortController();
  const body = { model: 'm', stream: true, messages: [{ role: 'user', content: process.env.MESSAGE }] };
  const collect = async () => { for (let i = 0; i < 3; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 20)); } };
  const started = Date.now();
  const read = (async () => {
    const reply = await postUpstream(target, body, controller.signal);
    if (process.env.READ === 'none') return 'not read';
    for await (const chunk of reply.chunks()) void chunk;
    return 'read to the end';
  })().catch((error) => error.message);
  await new Promise((r) => setTimeout(r, Number(process.env.ABORT_AFTER_MS)));
  await collect();
  const abortedAt = Date.now();
  controller.abort(new Error('the caller left'));
  const outcome = await Promise.race([read, new Promise((r) => setTimeout(() => r('still reading after 3 s'), 3000))]);
  // A body nobody reads is only closed by the abort: stay up, so the process's exit does not close it instead.
  if (process.env.READ === 'none') await new Promise((r) => setTimeout(r, 3000));
  console.log(JSON.stringify({ outcome, abortedAt, ms: Date.now() - started }));
  process.exit(0);
`;

function abortAfterGc(message: string, abortAfterMs: number, read = 'all'): Promise<{ outcome: string; abortedAt: number }> {
  return inOwnProcess(SCRIPT, { UPSTREAM_URL: upstream.url, MESSAGE: message, ABORT_AFTER_MS: String(abortAfterMs), READ: read }, { nodeFlags: ['--expose-gc'] });
}

test('aborted while the reply streams, after a full GC: the read fails as cancelled and the upstream sees its connection closed', async () => {
  // About 9 s of reply in 8-character pieces.
  const message = `fault:pace 100 ${crypto.randomUUID()} ${'a much longer answer, '.repeat(30)}`;
  const { outcome } = await abortAfterGc(message, 300);
  expect(outcome).toBe('Agent slow: the call was cancelled.');
  await upstream.waitFor((log) => log.some((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message), 3_000);
}, 30_000);

test('aborted before the upstream answered, after a full GC: the call fails as cancelled at once', async () => {
  const message = `fault:hang ${crypto.randomUUID()}`;
  const { outcome } = await abortAfterGc(message, 300);
  expect(outcome).toBe('Agent slow: the call was cancelled.');
}, 30_000);

test('aborted while an error body trickles in, after a full GC: the call fails at once and the upstream sees its connection closed', async () => {
  // An HTTP 500 whose body would take about 100 s: its first ERROR_BODY_BYTES are read for the operator's log.
  const message = `fault:error-pace 100 ${crypto.randomUUID()}`;
  const { outcome } = await abortAfterGc(message, 300);
  expect(outcome).toBe('Agent slow failed: the upstream answered HTTP 500.');
  await upstream.waitFor((log) => log.some((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message), 3_000);
}, 30_000);

test('aborted after the reply head came, its body not yet read, after a full GC: the upstream sees its connection closed', async () => {
  const message = `fault:pace 100 ${crypto.randomUUID()} ${'a much longer answer, '.repeat(30)}`;
  const { outcome, abortedAt } = await abortAfterGc(message, 300, 'none');
  expect(outcome).toBe('not read');
  const log = await upstream.waitFor((log) => log.some((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message), 3_000);
  // Closed by the abort, well before the process exited (3 s after it).
  const closed = log.find((e) => e.kind === 'closed' && e.body?.messages?.at(-1)?.content === message)!;
  expect(closed.at - abortedAt).toBeLessThan(1_500);
}, 30_000);
