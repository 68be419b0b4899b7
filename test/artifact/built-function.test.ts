/**
 * The deployed artifact answers: api/mcp as `vercel build` emitted it (run `npm run build` first; `npm test`
 * does), loaded the way the platform loads it.
 */

import { beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error plain ESM helper without type declarations
import { loadBuiltFunction } from '../../scripts/load-built.mjs';

let fn: { fetch(request: Request): Promise<Response> };
beforeAll(async () => {
  fn = await loadBuiltFunction('api/mcp');
});

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('the built api/mcp function', () => {
  test('answers tools/list on the legacy wire with the agent tool', async () => {
    const response = await fn.fetch(new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { ...headers, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    }));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.result.tools.map((t: { name: string }) => t.name)).toContain('chat_with_agent');
  });

  test('answers server/discover on the modern wire', async () => {
    const response = await fn.fetch(new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { ...headers, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
      body: JSON.stringify({
        jsonrpc: '2.0', id: 2, method: 'server/discover',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    }));
    const body = await response.json();
    expect(body.result).toMatchObject({ resultType: 'complete', supportedVersions: expect.arrayContaining(['2026-07-28', '2025-11-25']) });
  });

  test('validates tools/call arguments with the schema it loads on first use', async () => {
    const response = await fn.fetch(new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { ...headers, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message: 42 } } }),
    }));
    const body = await response.json();
    expect(body.result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('Invalid arguments for tool chat_with_agent: message') }] });
  });

  test('runs a tools/call through the demo agent', async () => {
    const response = await fn.fetch(new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { ...headers, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message: 'hello artifact' } } }),
    }));
    const body = await response.json();
    expect(body.result.structuredContent).toMatchObject({ agent_id: 'demo', reply: expect.stringContaining('hello artifact') });
  });

  test('refuses GET with 405 and Allow', async () => {
    const response = await fn.fetch(new Request('http://localhost/mcp', { method: 'GET' }));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
  });
});
