/**
 * A misconfigured deployment (run `npm run build` first; `npm test` does): the built api/mcp function reads the
 * environment on its first request, logs the configuration error once per instance, and answers every request
 * with a JSON-RPC error that points at the log without repeating the detail.
 */

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
// @ts-expect-error plain ESM helper without type declarations
import { loadBuiltFunction } from '../../scripts/load-built.mjs';

type Fn = { fetch(request: Request): Promise<Response> };
const BAD_AGENTS = '[{"id":"support","format":"platform","url":"https://agents.example.com/chat","apiKey":"sk-secret"}]';
let mcp: Fn;
const errors: string[] = [];

beforeAll(async () => {
  process.env.AGENTS = BAD_AGENTS;
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => { errors.push(args.join(' ')); });
  mcp = await loadBuiltFunction('api/mcp');
});
afterAll(() => {
  delete process.env.AGENTS;
  vi.restoreAllMocks();
});

const toolsList = (id: number) => new Request('http://localhost/mcp', {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
  body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
});

describe('the built api/mcp function with a bad AGENTS', () => {
  test('answers every request with -32603 "server misconfigured: see the function log" and no detail', async () => {
    for (const id of [1, 2, 3]) {
      const response = await mcp.fetch(toolsList(id));
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'server misconfigured: see the function log' } });
      expect(text).not.toContain('AGENTS');
      expect(text).not.toContain('sk-secret');
    }
  });

  test('logs the configuration error, naming the variable and the fix, once per instance', () => {
    const logged = errors.filter((line) => line.includes('configuration error'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('AGENTS: agent support inlines its key');
    expect(logged[0]).toContain('apiKeyEnv');
  });
});
