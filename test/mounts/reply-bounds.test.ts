/**
 * Everything a mounted server sends is bounded: a reply (a JSON body, or one event of an SSE stream) past the
 * mount's maxReplyBytes, and lists past maxListPages, maxListItems or maxReplyBytes across their pages. A caller
 * who meets a bound gets an isError result naming the mount and the bound, never a 5xx or a hang; the operator
 * gets one log line; the connection is dropped and the next request reconnects; other callers carry on.
 * Hostile servers: the official SDK server where it can misbehave so (test/support/hostile-mounts.ts), and a raw
 * HTTP server for the SSE event that never ends.
 */

import type { Client } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import * as z from 'zod';
import { MOUNT_STATUS_URI, type MountStatus } from '../../lib/mounts/index.js';
import { startDownstream, type Downstream } from '../support/downstream.js';
import { serveModern } from '../support/downstream-modern.js';
import { startEndlessEventMount, startPagingMount, type HostileMount } from '../support/hostile-mounts.js';
import { connectOverHttp, startMountedApp, type MountedApp } from '../support/mounts.js';
import { firstText, type Era } from '../support/sdk.js';

const CAP = 64 * 1024;
const OVER = 4 * CAP;

let servers: { bigjson: HostileMount; bigsse: HostileMount; endless: HostileMount; pager: HostileMount; crowd: HostileMount; heavy: HostileMount };
let modern: { url: string; close(): Promise<void> };
let docs: Downstream;
let mounted: MountedApp;
let warn: { mock: { calls: unknown[][] }; mockRestore(): void };
const clients: Client[] = [];

function bigModernServer(): McpServer {
  const server = new McpServer({ name: 'modern-big', version: '2.0.0' });
  server.registerTool('big', { description: 'Answers `bytes` bytes of text.', inputSchema: z.object({ bytes: z.number() }) },
    async ({ bytes }) => ({ content: [{ type: 'text', text: 'x'.repeat(bytes) }] }));
  server.registerTool('echo', { description: 'Echoes text.', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text: `hostile: ${text}` }] }));
  return server;
}

beforeAll(async () => {
  warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const [bigjson, bigsse, endless, pager, crowd, heavy] = await Promise.all([
    startPagingMount({ pageSize: 0, pages: 1, json: true }),
    startPagingMount({ pageSize: 0, pages: 1 }),
    startEndlessEventMount(),
    startPagingMount({ pageSize: 1, pages: Infinity, json: true }),
    startPagingMount({ pageSize: 500, pages: 3, json: true }),
    startPagingMount({ pageSize: 300, pages: 5, json: true }),
  ]);
  servers = { bigjson, bigsse, endless, pager, crowd, heavy };
  modern = await serveModern(bigModernServer, () => undefined);
  docs = await startDownstream('docs');
  mounted = startMountedApp([
    { name: 'bigjson', url: bigjson.url, maxReplyBytes: CAP },
    { name: 'bigsse', url: bigsse.url, maxReplyBytes: CAP },
    { name: 'endless', url: endless.url, maxReplyBytes: CAP },
    { name: 'modernbig', url: modern.url, era: 'auto', maxReplyBytes: CAP },
    { name: 'pager', url: pager.url, maxListPages: 5 },
    { name: 'crowd', url: crowd.url, maxListItems: 100 },
    { name: 'heavy', url: heavy.url, maxReplyBytes: 40_000 },
    { name: 'docs', url: docs.url },
  ], { waitMs: 15_000 });
  await mounted.mounts.waitForConnections();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await mounted.close();
  await Promise.all([...Object.values(servers).map((s) => s.close()), modern.close(), docs.close()]);
  warn.mockRestore();
});

async function caller(era: Era = 'legacy'): Promise<Client> {
  const client = await connectOverHttp(era, (await mounted.http()).mcpUrl);
  clients.push(client);
  return client;
}

async function status(): Promise<Record<string, MountStatus>> {
  const { contents } = await (await caller()).readResource({ uri: MOUNT_STATUS_URI });
  const { mounts } = JSON.parse((contents[0] as { text: string }).text) as { mounts: MountStatus[] };
  return Object.fromEntries(mounts.map((m) => [m.name, m]));
}

const boundText = (mount: string) =>
  `Mount ${mount}: the reply exceeded ${CAP} bytes (maxReplyBytes in MCP_MOUNTS); the connection was dropped, and the next request reconnects.`;
const logLines = (pattern: RegExp) => warn.mock.calls.filter(([line]) => pattern.test(String(line)));

/** Other callers are served after a mount hit a bound: the app's own tool and a well-behaved mount's. */
async function othersAreServed(): Promise<void> {
  const other = await caller();
  expect(firstText(await other.callTool({ name: 'whoami' }))).toBe('(anonymous)');
  expect(firstText(await other.callTool({ name: 'docs.echo', arguments: { text: 'still up' } }))).toBe('docs: still up');
}

describe('a reply past maxReplyBytes', () => {
  test.each([
    ['a JSON body', 'bigjson', 'legacy'],
    ['one SSE event', 'bigsse', 'legacy'],
    ['a 2026-07-28 mount\'s JSON body, for a 2026-07-28 caller', 'modernbig', 'modern'],
  ] as const)('%s over the cap gets an isError result naming the mount and the bound; one log line; the mount reconnects', async (_case, mount, era) => {
    const client = await caller(era);
    const result = await client.callTool({ name: `${mount}.big`, arguments: { bytes: OVER } });

    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: boundText(mount) }] });
    expect(logLines(new RegExp(`^\\[agent-mcp\\] mount ${mount} is down: the reply exceeded ${CAP} bytes \\(maxReplyBytes in MCP_MOUNTS\\)`))).toHaveLength(1);
    expect(firstText(await client.callTool({ name: `${mount}.echo`, arguments: { text: 'again' } }))).toBe('hostile: again');
    await othersAreServed();
  });

  test('an SSE event that never ends is cut at the cap: the caller gets the error, and the mount sees its stream closed', async () => {
    const client = await caller();
    const result = await client.callTool({ name: 'endless.stream' });

    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: boundText('endless') }] });
    await servers.endless.cut;
    expect(logLines(/^\[agent-mcp\] mount endless is down: the reply exceeded/)).toHaveLength(1);
    expect(firstText(await client.callTool({ name: 'endless.echo' }))).toBe('endless: still here');
    await othersAreServed();
  });

  test('a long stream of small progress events is not cut: the bound is per event, not per stream', async () => {
    const client = await caller();
    const progress: unknown[] = [];
    const steps = 100;
    const result = await client.callTool({ name: 'bigsse.chatty', arguments: { steps, bytes: 2_000 } }, { onprogress: (p) => progress.push(p) });

    expect(steps * 2_000).toBeGreaterThan(CAP);
    expect(result.isError).toBeFalsy();
    expect(firstText(result)).toBe('done');
    expect(progress).toHaveLength(steps);
  });
});

describe('listing bounds', () => {
  test('a mount that pages forever is listed from its first maxListPages pages, asked for no more, and says so', async () => {
    const { tools } = await (await caller()).listTools();
    const listed = tools.map((t) => t.name).filter((name) => name.startsWith('pager.'));

    expect(servers.pager.listRequests()).toBe(5);
    expect(listed).toEqual(expect.arrayContaining(['pager.echo', 'pager.t0_0', 'pager.t4_0']));
    expect(listed).toHaveLength(3 + 5);
    expect((await status()).pager).toMatchObject({ state: 'ready', tools: 8, truncated: ['tools: more than 5 pages (maxListPages); the first 8 are listed'] });
    expect(logLines(/^\[agent-mcp\] mount pager is listed partially: tools: more than 5 pages \(maxListPages\)/)).toHaveLength(1);
  });

  test('a mount that lists more than maxListItems tools is listed with the first maxListItems, and says so', async () => {
    const { tools } = await (await caller()).listTools();

    expect(tools.filter((t) => t.name.startsWith('crowd.'))).toHaveLength(100);
    expect(servers.crowd.listRequests()).toBe(1);
    expect((await status()).crowd).toMatchObject({ state: 'ready', tools: 100, truncated: ['tools: more than 100 (maxListItems); the first 100 are listed'] });
    expect(logLines(/^\[agent-mcp\] mount crowd is listed partially: tools: more than 100 \(maxListItems\)/)).toHaveLength(1);
  });

  test('a list whose pages together pass maxReplyBytes keeps the pages before the one that passed it', async () => {
    const { tools } = await (await caller()).listTools();
    const heavy = (await status()).heavy!;

    // Each page of 300 tools is about 14 kB of JSON: two pages fit in 40 000 bytes, the third does not.
    expect(tools.filter((t) => t.name.startsWith('heavy.'))).toHaveLength(3 + 600);
    expect(servers.heavy.listRequests()).toBe(3);
    expect(heavy).toMatchObject({ state: 'ready', truncated: ['tools: more than 40000 bytes across its pages (maxReplyBytes); the first 603 are listed'] });
  });
});
