/**
 * No forwarded call outlives its caller forever: a mounted tool that only reports progress ends at the mount's
 * `maxCallMs`, and a 2025 caller with no identity that hangs up has its call cancelled at the mount, since nobody
 * can resume or cancel it later. Real HTTP, the official v2 client as caller, an SDK 1.x server as the mount.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createCallSlots } from '../../lib/limits/concurrency.js';
import { startLingeringMount, type LingeringMount } from '../support/hostile-mounts.js';
import { startMountedApp, type MountedApp } from '../support/mounts.js';
import { openSession, post, readSse } from '../support/rpc.js';
import { connectHttp, createV2Client, firstText, LEGACY_VERSION } from '../support/sdk.js';

let mount: LingeringMount;
let mounted: MountedApp;
let url: string;

beforeAll(async () => {
  mount = await startLingeringMount();
  mounted = startMountedApp([
    // Progress every 20 ms keeps resetting callTimeoutMs; only the total bound can end the call.
    { name: 'bounded', url: mount.url, callTimeoutMs: 5_000, maxCallMs: 300 },
    { name: 'open', url: mount.url },
  // Every caller here comes from one loopback address: its share of concurrent calls is set above the 21 below.
  ], { waitMs: 10_000, calls: createCallSlots(64) });
  url = (await mounted.http()).mcpUrl;
  await mounted.mounts.waitForConnections();
});

afterAll(async () => {
  await mounted.close();
  await mount.close();
});

/** A call of `progress_forever`; with a progress token its reply is an SSE stream from the first progress, else one JSON body at the end. */
const forever = (id: number | string, mountName: string, streamed = true) => ({
  jsonrpc: '2.0', id, method: 'tools/call',
  params: { name: `${mountName}.progress_forever`, arguments: { everyMs: 20 }, ...(streamed ? { _meta: { progressToken: `p${id}` } } : {}) },
});

describe('a forwarded call has a total bound', () => {
  test('a tool that reports progress forever ends at maxCallMs with an isError result, and the mount sees its cancellation', async () => {
    const client = createV2Client('legacy');
    await connectHttp(client, url);
    const cancelled = mount.cancelled();
    let progress = 0;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const result = await client.callTool(
      { name: 'bounded.progress_forever', arguments: { everyMs: 20 } },
      { onprogress: () => void progress++, timeout: 10_000 },
    );
    expect(result.isError).toBe(true);
    expect(firstText(result)).toBe('Mount bounded: the call ran past its total bound of 300 ms (maxCallMs); it was cancelled at the mount.');
    expect(progress).toBeGreaterThan(0);
    expect(warn).toHaveBeenCalledWith("[agent-mcp] cancelled 1 forwarded call(s) at their mount's maxCallMs (latest: mount bounded)");
    warn.mockRestore();
    await vi.waitFor(() => expect(mount.cancelled()).toBe(cancelled + 1), { timeout: 5_000 });
    await client.close();
  });
});

describe('a call whose caller is gone and cannot come back', () => {
  test('21 anonymous 2025 callers (no session, no token) hang up, streamed or waiting for JSON: every forwarded call is cancelled at the mount', async () => {
    const before = mount.alive();
    const callers = Array.from({ length: 21 }, () => new AbortController());
    const posts = callers.map((gone, i) =>
      post(url, forever(i, 'open', i % 2 === 0), { 'mcp-protocol-version': LEGACY_VERSION }, { signal: gone.signal }).catch(() => undefined));
    await vi.waitFor(() => expect(mount.alive()).toBe(before + 21), { timeout: 5_000 });
    for (const gone of callers) gone.abort();
    await Promise.all(posts);
    await vi.waitFor(() => expect(mount.alive()).toBe(before), { timeout: 5_000 });
  });

  test('a caller with a session that hangs up keeps its call (it may resume the stream or cancel it), until it cancels', async () => {
    const session = await openSession(url);
    const gone = new AbortController();
    const anonymous = new AbortController();
    const before = mount.alive();
    const kept = await post(url, forever('kept', 'open'), session, { signal: gone.signal });
    const dropped = await post(url, forever('dropped', 'open'), { 'mcp-protocol-version': LEGACY_VERSION }, { signal: anonymous.signal });
    await Promise.all([readSse(kept).next(), readSse(dropped).next()]);
    expect(mount.alive()).toBe(before + 2);
    gone.abort();
    anonymous.abort();
    // The anonymous call is cancelled; the caller with a session still has its own running.
    await vi.waitFor(() => expect(mount.alive()).toBe(before + 1), { timeout: 5_000 });
    expect(mount.alive()).toBe(before + 1);
    await post(url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'kept' } }, session);
    await vi.waitFor(() => expect(mount.alive()).toBe(before), { timeout: 10_000 });
  });
});
