import { afterEach, describe, expect, test, vi } from 'vitest';
import { DEFAULT_REQUEST_BOUNDS } from '../../lib/http/bounds.js';
import { frameCall } from '../../lib/http/frame.js';
import { LogMemory } from '../../lib/http/sse.js';
import { notificationMessage, resultMessage } from '../../lib/protocol/jsonrpc.js';
import { MemoryStore } from '../../lib/store/memory.js';

const REQUEST_CONTEXT = Symbol.for('@vercel/request-context');

/** The Vercel runtime's request context, faked: the platform is the edge these tests cannot reach. */
function fakeVercelRequestContext(): Promise<unknown>[] {
  const kept: Promise<unknown>[] = [];
  vi.stubEnv('VERCEL', '1');
  (globalThis as Record<symbol, unknown>)[REQUEST_CONTEXT] = { get: () => ({ waitUntil: (work: Promise<unknown>) => kept.push(work) }) };
  return kept;
}

/** A call that streams one notification, closes the client's stream early, and finishes when told. */
function streamedCall() {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const response = frameCall({
    version: '2025-11-25',
    run: async (outbound) => {
      outbound.write(notificationMessage('notifications/message', { level: 'info', data: 'working' }));
      outbound.closeStream!();
      await finished;
      return resultMessage(1, {});
    },
    statusOf: () => 200,
    // A logged stream: only a stream the client can resume may be closed early.
    log: { store: new MemoryStore(), streamId: 'keep-alive-test-stream', owner: 'caller', maxBytes: DEFAULT_REQUEST_BOUNDS.maxStreamLogBytes, memory: new LogMemory(DEFAULT_REQUEST_BOUNDS.maxStreamLogMemoryBytes) },
    isRequest: true,
    onClientGone: () => undefined,
  });
  return { response, finish };
}

afterEach(() => {
  vi.unstubAllEnvs();
  delete (globalThis as Record<symbol, unknown>)[REQUEST_CONTEXT];
});

describe('a streamed call outlives its response', () => {
  test('on Vercel (request context faked) the instance is kept until the call finishes, after its stream ended', async () => {
    const kept = fakeVercelRequestContext();
    const call = streamedCall();
    expect(await (await call.response).text()).toContain('working');
    await vi.waitFor(() => expect(kept).toHaveLength(1), { timeout: 5_000 });
    let settled = false;
    void kept[0]!.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    call.finish();
    await kept[0];
    expect(settled).toBe(true);
  });

  test('off Vercel nothing asks to be kept', async () => {
    const kept: Promise<unknown>[] = [];
    (globalThis as Record<symbol, unknown>)[REQUEST_CONTEXT] = { get: () => ({ waitUntil: (work: Promise<unknown>) => kept.push(work) }) };
    const call = streamedCall();
    await (await call.response).text();
    call.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(kept).toEqual([]);
  });
});
