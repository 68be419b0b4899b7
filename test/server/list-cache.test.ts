/**
 * A first list page is the same for every caller who may see the same entries on the same wire: it is built once,
 * frozen, and served as is to the next caller of that view; callers whose scopes differ, the other wire, a later
 * page and a changed registry get their own (docs/performance.md).
 */

import { describe, expect, test } from 'vitest';
import { agentDefinitions } from '../../lib/agent/index.js';
import { createApp } from '../../lib/app.js';
import type { Principal } from '../../lib/server/context.js';
import { MAX_LIST_VIEWS } from '../../lib/server/list-cache.js';
import { MemoryStore } from '../../lib/store/memory.js';

const echo = { id: 'echo', name: 'Echo', description: 'Says it back.', reply: async function* () { yield 'ok'; } };
const tool = (name: string, scopes?: string[]) => ({ name, description: 'A tool.', ...(scopes ? { scopes } : {}), run: () => ({ content: [] }) });
const app = createApp({
  definitions: [{ tools: [tool('open_tool'), tool('admin_tool', ['admin'])] }, agentDefinitions({}, [echo])],
  defaultScopes: ['mcp'],
  origin: { local: true, allowedOrigins: new Set() },
  pageSize: 2,
});
const store = new MemoryStore();
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

async function list(principal: Principal | undefined, era: 'legacy' | 'modern' = 'legacy', params: Record<string, unknown> = {}): Promise<any> {
  const reply: any = await app.dispatch(
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: era === 'modern' ? { ...params, _meta: MODERN_META } : params },
    era === 'modern'
      ? { era, protocolVersion: '2026-07-28', principal, clientCapabilities: {}, signal: new AbortController().signal, store }
      : { era, protocolVersion: '2025-11-25', principal, clientCapabilities: {}, signal: new AbortController().signal, store },
  );
  expect(reply.error).toBeUndefined();
  return reply.result;
}

const names = (result: any) => result.tools.map((t: { name: string }) => t.name);

describe('tools/list pages kept per view', () => {
  test('the next caller of the same view gets the page built for the first, frozen', async () => {
    const first = await list(undefined);
    const second = await list(undefined);
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.tools)).toBe(true);
  });

  test('on the 2026-07-28 wire the completed result is kept too, and names the server', async () => {
    const first = await list(undefined, 'modern');
    expect(await list(undefined, 'modern')).toBe(first);
    expect(first.resultType).toBe('complete');
    expect(first._meta['io.modelcontextprotocol/serverInfo']).toBeDefined();
    expect(first).not.toBe(await list(undefined, 'legacy'));
  });

  test('callers whose scopes differ each see their own page', async () => {
    const admin = await list({ subject: 'a', scopes: ['admin'] });
    const plain = await list({ subject: 'b', scopes: ['mcp'] });
    expect(names(admin)).toEqual(['admin_tool']);
    expect(names(plain)).toContain('open_tool');
    expect(names(plain)).not.toContain('admin_tool');
    // Another subject with the same scopes sees the same entries: the same page.
    expect(await list({ subject: 'c', scopes: ['admin'] })).toBe(admin);
  });

  test('a later page is built for its request, from the cursor the client sent', async () => {
    const { nextCursor } = await list(undefined);
    expect(nextCursor).toBeTypeOf('string');
    const later = await list(undefined, 'legacy', { cursor: nextCursor });
    expect(await list(undefined, 'legacy', { cursor: nextCursor })).not.toBe(later);
    expect(names(later)).toEqual(['chat_with_agent']);
  });

  test.each(['resources/list', 'resources/templates/list', 'prompts/list'])('%s pages are kept the same way', async (method) => {
    const ask = async () => ((await app.dispatch({ jsonrpc: '2.0', id: 1, method, params: {} },
      { era: 'legacy', protocolVersion: '2025-11-25', clientCapabilities: {}, signal: new AbortController().signal, store })) as any).result;
    const first = await ask();
    expect(await ask()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  test(`at most ${MAX_LIST_VIEWS} views are kept: past that the oldest is built again`, async () => {
    const oldest = await list({ subject: 'x', scopes: ['mcp', 'v0'] });
    for (let i = 1; i <= MAX_LIST_VIEWS; i++) await list({ subject: 'x', scopes: ['mcp', `v${i}`] });
    const again = await list({ subject: 'x', scopes: ['mcp', 'v0'] });
    expect(again).not.toBe(oldest);
    expect(again).toEqual(oldest);
  });
});
