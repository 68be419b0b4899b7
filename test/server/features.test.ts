/**
 * The floor and its features (docs/architecture.md "The floor"): a feature's methods are answered beside the core's,
 * a method answered twice stops start-up, what features declare joins the capabilities, and their call strategies
 * wrap tools/call only once the core has found, allowed, validated and counted the call.
 */

import * as z from 'zod';
import { describe, expect, test } from 'vitest';
import { createRegistry } from '../../lib/server/create-registry.js';
import type { CallContext } from '../../lib/server/context.js';
import { createDispatcher } from '../../lib/server/dispatch.js';
import { createServer, type CallStrategy, type Feature } from '../../lib/server/server.js';
import { MemoryStore } from '../../lib/store/memory.js';

const store = new MemoryStore();
const legacy: CallContext = { era: 'legacy', protocolVersion: '2025-11-25', clientCapabilities: {}, store };
const request = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id: 1, method, params });
const info = { name: 'floor-test', version: '1.0.0' };
const echo = {
  name: 'echo', description: 'Says it back.', input: z.object({ text: z.string() }),
  run: ({ text }: { text: string }) => ({ content: [{ type: 'text', text }] }),
};

function serve(features: Feature[]) {
  return createDispatcher(createServer({ registry: createRegistry({ tools: [echo] }), info, features }));
}

describe('methods', () => {
  test('a feature\'s method is answered beside the core\'s', async () => {
    const dispatch = serve([{ methods: { 'skills/list': () => ({ skills: [], from: 'the feature' }) } }]);
    expect(await dispatch(request('skills/list'), legacy)).toMatchObject({ result: { from: 'the feature' } });
    expect(await dispatch(request('ping'), legacy)).toMatchObject({ result: {} });
  });

  test('without the feature, its method is not found', async () => {
    expect(await serve([])(request('skills/list'), legacy)).toMatchObject({ error: { code: -32601 } });
  });

  test('a method a feature answers and the core or another feature answers too stops start-up, naming it', () => {
    expect(() => serve([{ methods: { 'tools/call': () => ({}) } }])).toThrow(/Method tools\/call is answered twice/);
    const twice = { methods: { 'skills/list': () => ({}) } };
    expect(() => serve([twice, twice])).toThrow(/Method skills\/list is answered twice/);
  });
});

test('what features declare joins the capabilities: an object two of them name holds the entries of both', () => {
  const registry = createRegistry({ tools: [echo] });
  const declaring = (name: string): Feature => ({ declare: () => ({ legacy: { extensions: { [name]: {} } }, modern: { extensions: { [name]: {} } } }) });
  const server = createServer({ registry, info, features: [declaring('a/one'), { declare: () => undefined }, declaring('b/two')] });
  for (const wire of ['legacy', 'modern'] as const) {
    expect(server.capabilities[wire].extensions).toEqual({ 'a/one': {}, 'b/two': {} });
    expect(server.capabilities[wire].tools).toBeDefined();
  }
  expect(createServer({ registry, info }).capabilities.legacy.extensions).toBeUndefined();
});

describe('call strategies', () => {
  const seen: string[] = [];
  const noting = (name: string): CallStrategy => (call, ctx, next) => {
    seen.push(`${name}:${call.tool.definition.name}:${JSON.stringify(call.parsed)}`);
    return next(call, ctx);
  };
  const taking: CallStrategy = async (call) => ({ content: [{ type: 'text', text: `taken from ${call.tool.definition.name}` }] });

  test('wrap the tool\'s run in the order given, and see the validated arguments', async () => {
    seen.length = 0;
    const dispatch = serve([{ strategies: [noting('outer')] }, { strategies: [noting('inner')] }]);
    const reply = await dispatch(request('tools/call', { name: 'echo', arguments: { text: 'hi' } }), legacy);
    expect(reply).toMatchObject({ result: { content: [{ type: 'text', text: 'hi' }] } });
    expect(seen).toEqual(['outer:echo:{"text":"hi"}', 'inner:echo:{"text":"hi"}']);
  });

  test('a strategy may run the call its own way instead of handing it on', async () => {
    seen.length = 0;
    const dispatch = serve([{ strategies: [taking, noting('never')] }]);
    const reply = await dispatch(request('tools/call', { name: 'echo', arguments: { text: 'hi' } }), legacy);
    expect(reply).toMatchObject({ result: { content: [{ type: 'text', text: 'taken from echo' }] } });
    expect(seen).toEqual([]);
  });

  test('see no call the core refuses: an unknown tool, invalid arguments, a per-tool limit', async () => {
    seen.length = 0;
    const dispatch = serve([{ strategies: [noting('any')] }]);
    expect(await dispatch(request('tools/call', { name: 'nope', arguments: {} }), legacy)).toMatchObject({ error: { code: -32602 } });
    expect(await dispatch(request('tools/call', { name: 'echo', arguments: { text: 3 } }), legacy)).toMatchObject({ result: { isError: true } });
    const limited: CallContext = { ...legacy, limitTool: async () => ({ message: 'Over the limit.', retryAfterSeconds: 5 }) };
    expect(await dispatch(request('tools/call', { name: 'echo', arguments: { text: 'hi' } }), limited)).toMatchObject({ result: { isError: true } });
    expect(seen).toEqual([]);
  });
});
