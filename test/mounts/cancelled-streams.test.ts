/**
 * A forwarded call cancelled on the 2025 wire closes our side of its stream to the mount: the mount gets
 * `notifications/cancelled`, and agent-mcp no longer holds the call's SSE stream open waiting for a mount that
 * may never end it (the spec lets a server ignore a cancellation). Whether the caller cancels or the mount's
 * callTimeoutMs runs out, no connection is left per cancelled call. Real HTTP, the official v2 client as caller,
 * a raw mount that never ends a tools/call stream, its open streams counted on its own side.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startStubbornMount, type StubbornMount } from '../support/hostile-mounts.js';
import { startMountedApp, type MountedApp } from '../support/mounts.js';
import { connectHttp, createV2Client, firstText } from '../support/sdk.js';

const CALLS = 8;
let mount: StubbornMount;
let mounted: MountedApp;
let url: string;

beforeAll(async () => {
  mount = await startStubbornMount();
  mounted = startMountedApp([
    { name: 'stubborn', url: mount.url },
    { name: 'slow', url: mount.url, callTimeoutMs: 300 },
  ], { waitMs: 10_000 });
  url = (await mounted.http()).mcpUrl;
  await mounted.mounts.waitForConnections();
});

afterAll(async () => {
  await mounted.close();
  await mount.close();
});

describe('a cancelled forwarded call on the 2025 wire', () => {
  test(`${CALLS} calls the caller cancels: the mount hears each cancellation, and none of their streams stays open`, async () => {
    const client = createV2Client('legacy');
    await connectHttp(client, url);
    const cancelled = mount.cancellations();
    const callers = Array.from({ length: CALLS }, () => new AbortController());
    const calls = callers.map((caller) =>
      client.callTool({ name: 'stubborn.wait', arguments: {} }, { signal: caller.signal }).then(() => 'answered', () => 'cancelled'));
    await vi.waitFor(() => expect(mount.openStreams()).toBe(CALLS), { timeout: 5_000 });
    for (const caller of callers) caller.abort();
    expect(await Promise.all(calls)).toEqual(Array(CALLS).fill('cancelled'));
    await vi.waitFor(() => expect(mount.cancellations()).toBe(cancelled + CALLS), { timeout: 5_000 });
    await vi.waitFor(() => expect(mount.openStreams()).toBe(0), { timeout: 5_000 });
    await client.close();
  });

  test('a call past the mount\'s callTimeoutMs: the caller reads why, the mount hears the cancellation, the stream is closed', async () => {
    const client = createV2Client('legacy');
    await connectHttp(client, url);
    const cancelled = mount.cancellations();
    const result = await client.callTool({ name: 'slow.wait', arguments: {} });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toBe('Mount slow: no answer within 300 ms.');
    await vi.waitFor(() => expect(mount.cancellations()).toBe(cancelled + 1), { timeout: 5_000 });
    await vi.waitFor(() => expect(mount.openStreams()).toBe(0), { timeout: 5_000 });
    await client.close();
  });
});
