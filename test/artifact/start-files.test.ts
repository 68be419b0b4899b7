/**
 * What a cold start of the built api/mcp loads (run `npm run build` first; `npm test` does): every file of the
 * function's bundle it imports before answering costs a cold start ~0.5 ms (docs/performance.md), so the first
 * tools/list, on either wire, needs the entry alone: the loader module, which reads the start-up script and its
 * V8 code cache (scripts/script-form.mjs) and imports nothing more. The chunks a tools/call loads later still find
 * esbuild's helpers, whose chunk the entry no longer imports.
 */

import { spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect, test } from 'vitest';
// @ts-expect-error plain ESM helper without type declarations
import { builtFunctionPath } from '../../scripts/load-built.mjs';

const TRACE = fileURLToPath(new URL('../support/import-trace.mjs', import.meta.url));

/** Runs `requests` (method, modern wire?, params) against a fresh import of the built function; the bundle files it loaded. */
function filesLoadedBy(requests: [string, boolean, Record<string, unknown>?][], env: Record<string, string> = {}): string[] {
  const path = builtFunctionPath('api/mcp');
  const script = `
    const fn = await import(${JSON.stringify(pathToFileURL(path).href)});
    for (const [method, modern, params = {}] of ${JSON.stringify(requests)}) {
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
      const response = await fn.default.fetch(new Request('http://localhost/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
          ...(modern ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method } : { 'mcp-protocol-version': '2025-11-25' }) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: modern ? { ...params, _meta: meta } : params }),
      }));
      const body = await response.json();
      if (!body.result) throw new Error(method + ': ' + JSON.stringify(body));
    }
    console.log(JSON.stringify({ modules: await globalThis.loadedModules(), codeCache: fn.codeCache?.status }));`;
  const run = spawnSync(process.execPath, ['--import', TRACE, '--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH!, ...env } });
  expect(run.status, run.stderr).toBe(0);
  const root = pathToFileURL(dirname(dirname(path))).href;
  const { modules, codeCache } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { modules: string[]; codeCache: string };
  // The start-up code came from the cache npm run build made for this Node, not compiled (test/artifact/code-cache.test.ts).
  expect(codeCache).toBe('used');
  return modules.filter((url) => url.startsWith(root)).map((url) => url.slice(root.length + 1));
}

test.each([['2025-11-25', false], ['2026-07-28', true]])('a cold start answers its first tools/list on the %s wire from the bundle entry alone, no chunk', (_, modern) => {
  expect(filesLoadedBy([['tools/list', modern]])).toEqual(['api/mcp.js']);
});

test('a tools/call whose arguments the quick check accepts loads no schema chunk; one it cannot vouch for loads it, which reaches the helpers chunk by itself', () => {
  const valid = filesLoadedBy([['tools/list', false], ['tools/call', false, { name: 'chat_with_agent', arguments: { message: 'hi' } }]]);
  expect(valid[0]).toBe('api/mcp.js');
  expect(valid.filter((file) => file.startsWith('chunks/chat-schema-'))).toEqual([]);
  const invalid = filesLoadedBy([['tools/list', false], ['tools/call', false, { name: 'chat_with_agent', arguments: { message: '' } }]]);
  expect(invalid[0]).toBe('api/mcp.js');
  expect(invalid.some((file) => file.startsWith('chunks/chat-schema-'))).toBe(true);
});

test('with an agent of every format configured, the first tools/list still loads the entry alone, and a call loads its format\'s chunk', () => {
  const agents = ['openai-responses', 'anthropic', 'ai-sdk', 'a2a'].map((format) => ({ id: format, format, url: 'http://127.0.0.1:9/v1', model: 'm' }));
  const env = { AGENTS: JSON.stringify(agents), AGENT_TIMEOUT_MS: '2000' };
  expect(filesLoadedBy([['tools/list', false]], env)).toEqual(['api/mcp.js']);
  const files = filesLoadedBy([['tools/list', false], ['tools/call', false, { name: 'chat_with_agent', arguments: { agent_id: 'anthropic', message: 'hi' } }]], env);
  expect(files[0]).toBe('api/mcp.js');
  expect(files.filter((file) => /^chunks\/(anthropic|responses|ai-sdk|a2a)-/.test(file)).map((file) => file.split('-')[0])).toEqual(['chunks/anthropic']);
});
