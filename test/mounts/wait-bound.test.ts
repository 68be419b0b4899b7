/**
 * The wait a request makes for mounts still connecting is bounded by MCP_MOUNTS_WAIT_MS from when the
 * connection attempt started: the first list after a cold start waits, later ones do not wait again for a
 * server that hangs; a failed mount is retried by a later request once it has rested. The connection is
 * substituted (an attempt the test settles) and the clock is frozen.
 */

import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { MountSession, OpenMount } from '../../lib/mounts/connect.js';
import { createMounts } from '../../lib/mounts/index.js';
import { createRequestContext } from '../../lib/server/context.js';
import { createKeyring } from '../../lib/server/keyring.js';
import { MemoryStore } from '../../lib/store/memory.js';

interface Attempt {
  resolve(session: MountSession): void;
  reject(error: Error): void;
}

/** An `open` whose attempts the test settles, one per call, in order. */
function controlledOpen() {
  const attempts: Attempt[] = [];
  const open: OpenMount = () => new Promise<MountSession>((resolve, reject) => void attempts.push({ resolve, reject }));
  return { open, attempts };
}

const session = (tool: string): MountSession => ({
  client: {} as MountSession['client'],
  era: 'legacy',
  openForCall: () => Promise.reject(new Error('no calls in this test')),
  listings: { tools: [{ name: tool, inputSchema: { type: 'object' } }], resources: [], templates: [], prompts: [] },
  close: async () => undefined,
});

function context() {
  const logs: unknown[] = [];
  const ctx = createRequestContext({
    era: 'legacy',
    protocolVersion: '2025-11-25',
    clientCapabilities: {},
    signal: new AbortController().signal,
    store: new MemoryStore(),
    outbound: { write: (message) => void logs.push((message as { params?: { data?: unknown } }).params?.data) },
  }, 1, 'tools/list', {}, { keyring: createKeyring(undefined) });
  return { ctx, logs };
}

async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true), () => (settled = true));
  await vi.advanceTimersByTimeAsync(0);
  return settled;
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('the wait bound', () => {
  test('the first read waits up to the bound; a later one does not wait again for the same attempt', async () => {
    const { open, attempts } = controlledOpen();
    const mounts = createMounts({ mounts: [{ name: 'hung', url: 'http://127.0.0.1:1/mcp' }], waitMs: 1_000, open });
    const first = mounts.read(context().ctx);

    await vi.advanceTimersByTimeAsync(999);
    expect(await isSettled(first)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await first).tools.size).toBe(0);

    const { ctx, logs } = context();
    expect(await isSettled(mounts.read(ctx))).toBe(true);
    expect(logs).toEqual([expect.objectContaining({ mount: 'hung', state: 'connecting' })]);
    expect(attempts).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a read that arrives after a slow attempt settles has its tools', async () => {
    const { open, attempts } = controlledOpen();
    const mounts = createMounts({ mounts: [{ name: 'slow', url: 'http://127.0.0.1:1/mcp' }], waitMs: 1_000, open });
    const read = mounts.read(context().ctx);
    attempts[0]!.resolve(session('search'));
    expect([...(await read).tools.keys()]).toEqual(['slow.search']);
  });

  test('with a bound of 0 a read never waits', async () => {
    const { open } = controlledOpen();
    const mounts = createMounts({ mounts: [{ name: 'a', url: 'http://127.0.0.1:1/mcp' }], waitMs: 0, open });
    expect(await isSettled(mounts.read(context().ctx))).toBe(true);
  });

  test('a failed mount rests, then a later request retries it and waits for the retry', async () => {
    const { open, attempts } = controlledOpen();
    const mounts = createMounts({ mounts: [{ name: 'flaky', url: 'http://127.0.0.1:1/mcp' }], waitMs: 1_000, retryMs: 30_000, open });
    attempts[0]!.reject(new Error('connect ECONNREFUSED'));
    expect((await mounts.read(context().ctx)).tools.size).toBe(0);
    expect(mounts.status()[0]).toMatchObject({ state: 'failed', error: 'connect ECONNREFUSED' });

    await vi.advanceTimersByTimeAsync(29_999);
    await mounts.read(context().ctx);
    expect(attempts).toHaveLength(1);

    await vi.advanceTimersByTimeAsync(1);
    const retried = mounts.read(context().ctx);
    expect(attempts).toHaveLength(2);
    attempts[1]!.resolve(session('search'));
    expect([...(await retried).tools.keys()]).toEqual(['flaky.search']);
    expect(mounts.status()[0]).toMatchObject({ state: 'ready', tools: 1 });
  });

  test('after close, a late connection is closed and never served', async () => {
    const { open, attempts } = controlledOpen();
    const mounts = createMounts({ mounts: [{ name: 'late', url: 'http://127.0.0.1:1/mcp' }], waitMs: 1_000, open });
    await mounts.close();
    const closed = vi.fn(async () => undefined);
    attempts[0]!.resolve({ ...session('search'), close: closed });
    await vi.advanceTimersByTimeAsync(0);
    expect(closed).toHaveBeenCalledOnce();
    expect((await mounts.read(context().ctx)).tools.size).toBe(0);
  });
});
