/**
 * The mount manager: one connection per mount name (adding a name twice reuses it), mounts added while
 * the app runs, servers on the 2026-07-28 wire, names that cannot be namespaced, and connections that
 * break under a call and are reopened.
 */

import { afterEach, describe, expect, test, vi } from 'vitest';
import { startDownstream, type Downstream } from '../support/downstream.js';
import { startModernDownstream, type ModernDownstream } from '../support/downstream-modern.js';
import { namesOf, startMountedApp, type MountedApp } from '../support/mounts.js';
import { firstText } from '../support/sdk.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
  vi.restoreAllMocks();
});

async function downstream(name: string, options?: Parameters<typeof startDownstream>[1]): Promise<Downstream> {
  const server = await startDownstream(name, options);
  cleanup.push(() => server.close());
  return server;
}

function mount(...args: Parameters<typeof startMountedApp>): MountedApp {
  const app = startMountedApp(...args);
  cleanup.push(() => app.close());
  return app;
}

describe('adding mounts', () => {
  test('adding the same name twice reuses the existing connection', async () => {
    const docs = await downstream('docs');
    const app = mount([{ name: 'docs', url: docs.url }], { waitMs: 10_000 });

    const again = app.mounts.add({ name: 'docs', url: docs.url });
    await app.mounts.waitForConnections();
    const { client } = await app.connect('legacy');
    await client.callTool({ name: 'docs.echo', arguments: { text: 'once' } });

    expect(again.name).toBe('docs');
    expect(app.mounts.status()).toHaveLength(1);
    expect(docs.methods.filter((m) => m === 'initialize')).toHaveLength(1);
  });

  test('the same name from another URL is refused with a TypeError naming the mount', async () => {
    const docs = await downstream('docs');
    const app = mount([{ name: 'docs', url: docs.url }], { waitMs: 10_000 });
    expect(() => app.mounts.add({ name: 'docs', url: 'http://127.0.0.1:9/mcp' }))
      .toThrow(new TypeError('Mount "docs" is already mounted from another URL.'));
  });

  test('a mount added while the app runs is in the next list', async () => {
    const [docs, more] = await Promise.all([downstream('docs'), downstream('more')]);
    const app = mount([{ name: 'docs', url: docs.url }], { waitMs: 10_000 });
    const { client } = await app.connect('legacy');
    expect(namesOf((await client.listTools()).tools)).not.toContain('more.echo');

    app.mounts.add({ name: 'more', url: more.url });
    const { tools } = await client.listTools();

    expect(namesOf(tools)).toEqual(expect.arrayContaining(['docs.echo', 'more.echo']));
  });

  test('a downstream tool whose namespaced name would break SEP-986 is left out and reported', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const long = 't'.repeat(124);
    const docs = await downstream('docs', { extraTools: [long, 'short'] });
    const app = mount([{ name: 'docs', url: docs.url }], { waitMs: 10_000 });
    const { client } = await app.connect('legacy');

    const names = namesOf((await client.listTools()).tools);

    expect(names).toContain('docs.short');
    expect(names.some((n) => n.includes(long))).toBe(false);
    expect(app.mounts.status()[0]).toMatchObject({ state: 'ready', skipped: [long] });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('left out tools'));
  });
});

describe('eras of mounted servers', () => {
  let modern: ModernDownstream;

  test.each(['auto', 'legacy'] as const)('a server on the 2026-07-28 wire mounts with era "%s"', async (era) => {
    modern = await startModernDownstream();
    cleanup.push(() => modern.close());
    const app = mount([{ name: 'modern', url: modern.url, era }], { waitMs: 10_000 });
    const { client } = await app.connect('legacy');

    const { tools } = await client.listTools();
    const result = await client.callTool({ name: 'modern.weather', arguments: { city: 'Lima' } });

    expect(namesOf(tools)).toEqual(expect.arrayContaining(['modern.echo', 'modern.weather']));
    expect(result.structuredContent).toEqual({ city: 'Lima', celsius: 18 });
    expect(modern.methods.includes('server/discover')).toBe(era === 'auto');
  });
});

describe('a connection that breaks', () => {
  test('a call on a connection the server dropped is a tool error, and the next request reconnects', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const docs = await downstream('docs');
    const app = mount([{ name: 'docs', url: docs.url }], { waitMs: 10_000 });
    const { client } = await app.connect('legacy');
    expect(firstText(await client.callTool({ name: 'docs.echo', arguments: { text: 'a' } }))).toBe('docs: a');

    await docs.dropSessions();
    const broken = await client.callTool({ name: 'docs.echo', arguments: { text: 'b' } });
    expect(broken.isError).toBe(true);
    expect(firstText(broken)).toMatch(/^Mount docs: the server is unavailable/);
    expect(app.mounts.status()[0]).toMatchObject({ state: 'failed' });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('mount docs is down'));

    const again = await client.callTool({ name: 'docs.echo', arguments: { text: 'c' } });
    expect(firstText(again)).toBe('docs: c');
    expect(docs.methods.filter((m) => m === 'initialize')).toHaveLength(2);
  });
});
