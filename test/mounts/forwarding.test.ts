/**
 * Calls to mounted tools, resources and prompts are forwarded to the mounted server with progress,
 * cancellation, errors and structured content intact; downstream credentials come from configuration and
 * the client's own bearer token never travels downstream.
 */

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startDownstream, type Downstream } from '../support/downstream.js';
import { startMountedApp, type MountedApp } from '../support/mounts.js';
import { firstText } from '../support/sdk.js';
import { post, postModern } from '../support/rpc.js';
import { POST_HEADERS } from '../support/server.js';

let docs: Downstream;
let mounted: MountedApp;

beforeAll(async () => {
  docs = await startDownstream('docs');
  mounted = startMountedApp([{ name: 'docs', url: docs.url }], { waitMs: 10_000 });
});

afterAll(async () => {
  await mounted.close();
  await docs.close();
});

describe.each(['legacy', 'modern'] as const)('forwarded tools on the %s era', (era) => {
  test('a call reaches the mounted tool under its own name and returns its result', async () => {
    const { client } = await mounted.connect(era);
    const result = await client.callTool({ name: 'docs.echo', arguments: { text: 'hi' } });
    expect(result.content).toEqual([{ type: 'text', text: 'docs: hi' }]);
    expect(result.isError).toBeFalsy();
  });

  test('downstream progress arrives as the caller\'s progress, in order', async () => {
    const { client } = await mounted.connect(era);
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await client.callTool({ name: 'docs.count', arguments: { n: 3 } }, { onprogress: (p) => progress.push(p) });
    expect(firstText(result)).toBe('counted to 3');
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ]);
  });

  test('structured content and the published output schema are intact', async () => {
    const { client } = await mounted.connect(era);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'docs.weather')?.outputSchema).toMatchObject({
      type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } },
    });
    const result = await client.callTool({ name: 'docs.weather', arguments: { city: 'Oslo' } });
    expect(result.structuredContent).toEqual({ city: 'Oslo', celsius: 21 });
  });

  test('a tool error result is passed through unchanged', async () => {
    const { client } = await mounted.connect(era);
    const result = await client.callTool({ name: 'docs.fail' });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'the downstream tool failed on purpose' }] });
  });

  test('a downstream JSON-RPC error keeps its code, message and data', async () => {
    const { client } = await mounted.connect(era);
    const error = await client.callTool({ name: 'docs.authorize' }).then(() => undefined, (e: { code: number; message: string; data: unknown }) => e);
    expect(error?.code).toBe(-32042);
    expect(error?.message).toContain('URL elicitation required');
    expect(error?.data).toMatchObject({ elicitations: [{ mode: 'url', url: 'https://example.com/consent', elicitationId: 'consent-1' }] });
  });

  test('cancelling the call cancels the downstream request', async () => {
    const { client } = await mounted.connect(era);
    const key = `cancel-${era}`;
    const controller = new AbortController();
    const call = client.callTool({ name: 'docs.wait', arguments: { key } }, { signal: controller.signal });
    await docs.waiting(key);
    controller.abort('the user gave up');
    await expect(call).rejects.toBeDefined();
    await docs.cancelled(key);
  });

  test('resources and templates are read from the mounted server; an unknown URI is not found', async () => {
    const { client } = await mounted.connect(era);
    const { resources } = await client.listResources();
    expect(resources).toEqual(expect.arrayContaining([expect.objectContaining({ uri: 'note://docs/readme', name: 'docs.readme' })]));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual(expect.arrayContaining([expect.objectContaining({ uriTemplate: 'note://docs/items/{id}', name: 'docs.item' })]));

    const readme = await client.readResource({ uri: 'note://docs/readme' });
    expect(readme.contents).toEqual([{ uri: 'note://docs/readme', mimeType: 'text/plain', text: 'readme of docs' }]);
    const item = await client.readResource({ uri: 'note://docs/items/7' });
    expect(item.contents).toEqual([{ uri: 'note://docs/items/7', mimeType: 'text/plain', text: 'item 7 of docs' }]);
  });

  test('a URI no mount serves gets this era\'s not-found error', async () => {
    const server = await mounted.http();
    const response = era === 'modern'
      ? await postModern(server.mcpUrl, 1, 'resources/read', { uri: 'note://nowhere/x' })
      : await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'note://nowhere/x' } });
    const { error } = await response.json();
    expect(error).toMatchObject({ code: era === 'modern' ? -32602 : -32002, data: { uri: 'note://nowhere/x' } });
  });

  test('prompts are namespaced and forwarded with their arguments', async () => {
    const { client } = await mounted.connect(era);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('docs.greet');
    const prompt = await client.getPrompt({ name: 'docs.greet', arguments: { who: 'Ada' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Say hello to Ada from docs.' } }]);
  });

  test('completions of a mounted prompt\'s and template\'s arguments come from the mounted server', async () => {
    const { client } = await mounted.connect(era);
    const names = await client.complete({ ref: { type: 'ref/prompt', name: 'docs.greet' }, argument: { name: 'who', value: 'A' } });
    expect(names.completion.values).toEqual(['Ada', 'Alan']);
    const ids = await client.complete({ ref: { type: 'ref/resource', uri: 'note://docs/items/{id}' }, argument: { name: 'id', value: '1' } });
    expect(ids.completion.values).toEqual(['1', '10']);
  });
});

describe('errors on the wire', () => {
  test('a downstream JSON-RPC error reaches the client byte for byte', async () => {
    const server = await mounted.http();
    const forwarded = await (await post(server.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'docs.authorize', arguments: {} } })).json();
    const direct = await callDirectly(docs.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'authorize', arguments: {} } });
    expect(forwarded.error).toEqual(direct.error);
    expect(forwarded.error.code).toBe(-32042);
  });
});

/** One request straight to a downstream server, after its handshake; the JSON-RPC reply. */
async function callDirectly(url: string, body: Record<string, unknown>) {
  const headers = { 'mcp-protocol-version': '2025-11-25' };
  const init = await post(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'direct', version: '1.0.0' } } }, headers);
  await init.text();
  const reply = await post(url, body, { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')! });
  return JSON.parse(/^data: (.*)$/m.exec(await reply.text())![1]!);
}

describe('credentials', () => {
  test('downstream requests carry the configured credentials, never the client\'s bearer token', async () => {
    const vault = await startDownstream('vault');
    const app = startMountedApp([{ name: 'vault', url: vault.url, headers: { authorization: 'Bearer downstream-secret' } }], { waitMs: 10_000 });
    const server = await app.http();
    const response = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: { ...POST_HEADERS, authorization: 'Bearer client-token' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'vault.headers', arguments: {} } }),
    });
    expect(await response.text()).toContain('Bearer downstream-secret');
    expect(vault.headers.length).toBeGreaterThan(0);
    expect(vault.headers.every((h) => h.authorization === 'Bearer downstream-secret')).toBe(true);
    await app.close();
    await vault.close();
  });
});
