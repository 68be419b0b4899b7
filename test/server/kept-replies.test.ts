/**
 * A request the dispatcher can answer from what it keeps (a list's first page for the caller's view) is answered
 * before a call is set up: the answer is the one dispatching gives, and whatever dispatching would refuse or build
 * anew is left to it.
 */

import { describe, expect, test } from 'vitest';
import { agentDefinitions } from '../../lib/agent/index.js';
import { createApp } from '../../lib/app.js';
import type { CallContext, Principal } from '../../lib/server/context.js';
import { MemoryStore } from '../../lib/store/memory.js';
import { createRegistry } from '../../lib/server/create-registry.js';

const echo = { id: 'echo', name: 'Echo', description: 'Says it back.', reply: async function* () { yield 'ok'; } };
const tool = (name: string, scopes?: string[]) => ({ name, description: 'A tool.', ...(scopes ? { scopes } : {}), run: () => ({ content: [] }) });
const origin = { local: true, allowedOrigins: new Set<string>() };
const store = new MemoryStore();
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

function newApp() {
  return createApp({ definitions: [{ tools: [tool('open_tool'), tool('admin_tool', ['admin'])] }, agentDefinitions({}, [echo])], defaultScopes: ['mcp'], origin });
}

function call(era: 'legacy' | 'modern', principal?: Principal, logLevel?: string): CallContext {
  return { era, protocolVersion: era === 'modern' ? '2026-07-28' : '2025-11-25', principal, clientCapabilities: {}, logLevel, store };
}

const message = (method: string, era: 'legacy' | 'modern', id: number | string = 7, params: Record<string, unknown> = {}) =>
  ({ jsonrpc: '2.0', id, method, params: era === 'modern' ? { ...params, _meta: MODERN_META } : params });

const LISTS = ['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list'];

describe.each(['legacy', 'modern'] as const)('on the %s wire', (era) => {
  test.each(LISTS)('%s: nothing is kept before the first request of a view; after it, the kept answer is what dispatching gives, for any id', async (method) => {
    const app = newApp();
    expect(app.kept!(message(method, era), call(era))).toBeUndefined();
    const dispatched = await app.dispatch(message(method, era, 1), call(era));
    expect(dispatched).toMatchObject({ result: expect.any(Object) });
    for (const id of [1, 'a "string" id', 0]) {
      const kept = app.kept!(message(method, era, id), call(era));
      expect(kept).toEqual(await app.dispatch(message(method, era, id), call(era)));
      expect(kept).toMatchObject({ id });
    }
  });

  test('each view is its own: another caller\'s scopes are not answered from a page it may not see', async () => {
    const app = newApp();
    const admin: Principal = { subject: 'a', scopes: ['admin'] };
    await app.dispatch(message('tools/list', era), call(era, admin));
    expect(app.kept!(message('tools/list', era), call(era, admin))).toBeDefined();
    expect(app.kept!(message('tools/list', era), call(era, { subject: 'b', scopes: ['mcp'] }))).toBeUndefined();
    expect(app.kept!(message('tools/list', era), call(era))).toBeUndefined();
    expect(app.kept!(message('tools/list', era === 'modern' ? 'legacy' : 'modern'), call(era === 'modern' ? 'legacy' : 'modern', admin))).toBeUndefined();
  });

  test('a later page (a cursor), a notification, a response and another method are left to dispatching', async () => {
    const app = newApp();
    await app.dispatch(message('tools/list', era), call(era));
    expect(app.kept!(message('tools/list', era, 1, { cursor: 'x' }), call(era))).toBeUndefined();
    expect(app.kept!({ jsonrpc: '2.0', method: 'tools/list', params: {} }, call(era))).toBeUndefined();
    expect(app.kept!({ jsonrpc: '2.0', id: 1, result: {} }, call(era))).toBeUndefined();
    expect(app.kept!(message('ping', era), call(era))).toBeUndefined();
    expect(app.kept!({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: 'not an object' }, call(era))).toBeUndefined();
  });
});

test('on the 2026-07-28 wire an invalid log level is refused by dispatching, never answered from the kept page', async () => {
  const app = newApp();
  await app.dispatch(message('tools/list', 'modern'), call('modern'));
  expect(app.kept!(message('tools/list', 'modern'), call('modern', undefined, 'loud'))).toBeUndefined();
  expect(await app.dispatch(message('tools/list', 'modern'), call('modern', undefined, 'loud'))).toMatchObject({ error: { code: -32602 } });
  expect(app.kept!(message('tools/list', 'modern'), call('modern', undefined, 'debug'))).toBeDefined();
});

test('a method the wire does not serve is never answered, even where a page of that name is kept', async () => {
  const app = newApp();
  await app.dispatch(message('tools/list', 'legacy'), call('legacy'));
  // server/discover exists on the modern wire only; a legacy page never answers it.
  expect(app.kept!(message('server/discover', 'legacy'), call('legacy'))).toBeUndefined();
});

test('with entries read per request (mounted servers), nothing is answered before dispatching', async () => {
  const mounted = createRegistry({ tools: [tool('inner_tool')] });
  const app = createApp({ definitions: [{ tools: [tool('open_tool')] }], origin, sources: [{ read: async () => mounted }] });
  const first = await app.dispatch(message('tools/list', 'legacy'), call('legacy'));
  expect(JSON.stringify(first)).toContain('inner_tool');
  expect(app.kept!(message('tools/list', 'legacy'), call('legacy'))).toBeUndefined();
});
