/**
 * After a cold start, tools from mounted servers are never silently missing: a list waits for connections
 * still coming up (up to MCP_MOUNTS_WAIT_MS), is complete once they are up, and is bounded when they are
 * not; a mount that is slow or down is reported (a log notification and `mount://status`), not hidden.
 * Three real servers: one ready, one slow to start (held until the test releases it), one failing.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { MOUNT_STATUS_URI } from '../../lib/mounts/index.js';
import { startDownstream, type Downstream } from '../support/downstream.js';
import { connectOverHttp, namesOf, startMountedApp, type MountedApp } from '../support/mounts.js';
import { postModern } from '../support/rpc.js';

const DOWNSTREAM_TOOLS = ['authorize', 'count', 'echo', 'fail', 'headers', 'wait', 'weather'];
const toolsOf = (mount: string) => DOWNSTREAM_TOOLS.map((t) => `${mount}.${t}`);

let ready: Downstream;
let slow: Downstream;
let failing: Downstream;
let mounted: MountedApp | undefined;

let warn: ReturnType<typeof vi.spyOn>;

beforeEach(async () => {
  warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  [ready, slow, failing] = await Promise.all([startDownstream('ready'), startDownstream('slow', 'gated'), startDownstream('failing', 'failing')]);
});

afterEach(async () => {
  vi.restoreAllMocks();
  await mounted?.close();
  mounted = undefined;
  await Promise.all([ready.close(), slow.close(), failing.close()]);
});

function mountAll(waitMs: number) {
  mounted = startMountedApp([
    { name: 'ready', url: ready.url },
    { name: 'slow', url: slow.url },
    { name: 'failing', url: failing.url },
  ], { waitMs });
  return mounted;
}

/** A loopback port nothing listens on (connections are refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function readStatus(app: MountedApp) {
  const { client } = await app.connect('legacy');
  const { contents } = await client.readResource({ uri: MOUNT_STATUS_URI });
  const status = JSON.parse((contents[0] as { text: string }).text) as { mounts: Array<{ name: string; state: string; error?: string; tools?: number }> };
  return Object.fromEntries(status.mounts.map((m) => [m.name, m]));
}

describe('tools/list after a cold start', () => {
  test('waits for a mount that is slow to start and is complete once it is up', async () => {
    const app = mountAll(60_000);
    const { client } = await app.connect('legacy');
    let answered = false;
    const listing = client.listTools().then((result) => ((answered = true), result));
    await slow.initializing;
    expect(answered).toBe(false);
    slow.release();

    const { tools } = await listing;

    expect(namesOf(tools)).toEqual(['whoami', ...toolsOf('ready'), ...toolsOf('slow')].sort());
    expect(app.mounts.status().map((m) => [m.name, m.state])).toEqual([['ready', 'ready'], ['slow', 'ready'], ['failing', 'failed']]);
  });

  test('is bounded when a mount does not come up, says which mounts are missing, and completes once it is up', async () => {
    // Long enough for the ready mount to connect on a loaded machine; the slow one never does until released.
    const app = mountAll(2000);
    const { client, logs } = await app.connect('legacy');

    const { tools } = await client.listTools();

    expect(namesOf(tools)).toEqual(['whoami', ...toolsOf('ready')].sort());
    expect(logs).toEqual(expect.arrayContaining([
      expect.objectContaining({ mount: 'slow', state: 'connecting' }),
      expect.objectContaining({ mount: 'failing', state: 'failed', error: expect.stringContaining('HTTP 500') }),
    ]));
    const status = await readStatus(app);
    expect(status.slow).toMatchObject({ state: 'connecting' });
    expect(status.failing).toMatchObject({ state: 'failed' });
    expect(status.ready).toMatchObject({ state: 'ready', tools: DOWNSTREAM_TOOLS.length });

    slow.release();
    await app.mounts.waitForConnections();
    const after = await client.listTools();
    expect(namesOf(after.tools)).toEqual(['whoami', ...toolsOf('ready'), ...toolsOf('slow')].sort());
  });

  test('a mount that is down is reported in mount://status and the server log with the reason, never its URL', async () => {
    mounted = startMountedApp([
      { name: 'failing', url: failing.url },
      { name: 'gone', url: `http://127.0.0.1:${await closedPort()}/mcp` },
    ], { waitMs: 60_000 });
    await mounted.mounts.waitForConnections();

    const status = await readStatus(mounted);

    expect(status.failing).toMatchObject({ state: 'failed', error: expect.stringContaining('HTTP 500') });
    expect(status.gone).toMatchObject({ state: 'failed', error: expect.stringContaining('ECONNREFUSED') });
    expect(JSON.stringify(status)).not.toContain('127.0.0.1');
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^\[agent-mcp\] mount failing is down: HTTP 500/));
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^\[agent-mcp\] mount gone is down: ECONNREFUSED/));
  });

  test('on the modern wire a list missing a mount is immediately stale; a complete one gets the usual ttl', async () => {
    const ttlOfList = async (url: string) => (await (await postModern(url, 1, 'tools/list')).json()).result.ttlMs;
    const partial = mountAll(0);
    expect(await ttlOfList((await partial.http()).mcpUrl)).toBe(0);

    const complete = startMountedApp([{ name: 'ready', url: ready.url }], { waitMs: 60_000 });
    try {
      expect(await ttlOfList((await complete.http()).mcpUrl)).toBe(60_000);
    } finally {
      await complete.close();
    }
  });

  test.each(['legacy', 'modern'] as const)('over HTTP on the %s era, the first list after a cold start is complete', async (era) => {
    const app = mountAll(60_000);
    const server = await app.http();
    const client = await connectOverHttp(era, server.mcpUrl);
    const listing = client.listTools();
    await slow.initializing;
    slow.release();
    const { tools } = await listing;
    expect(namesOf(tools)).toEqual(['whoami', ...toolsOf('ready'), ...toolsOf('slow')].sort());
    await client.close();
  });
});
