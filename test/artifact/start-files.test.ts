/**
 * What a cold start of the built api/mcp loads (run `npm run build` first; `npm test` does): every file of the
 * function's bundle it imports before answering costs a cold start ~0.5 ms (docs/performance.md), so the first
 * tools/list, on either wire, needs the entry alone: the loader module, which reads the start-up script and its
 * V8 code cache (scripts/script-form.mjs) and imports nothing more. The chunks a tools/call loads later still find
 * esbuild's helpers, whose chunk the entry no longer imports.
 */

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
// @ts-expect-error plain ESM helper without type declarations
import { builtFunctionPath } from '../../scripts/load-built.mjs';
import { startDownstream } from '../support/downstream.js';
import { startUpstream } from '../support/upstream.js';

const TRACE = fileURLToPath(new URL('../support/import-trace.mjs', import.meta.url));

/**
 * Runs `requests` (method, modern wire?, params) against a fresh import of the built function, in a process of its
 * own while this one serves what it calls; the bundle files it loaded, and the last reply's result.
 */
async function run(requests: [string, boolean, Record<string, unknown>?][], env: Record<string, string> = {}): Promise<{ files: string[]; builtins: string[]; result: Record<string, unknown> }> {
  const path = builtFunctionPath('api/mcp');
  const script = `
    const fn = await import(${JSON.stringify(pathToFileURL(path).href)});
    let body;
    for (const [method, modern, params = {}] of ${JSON.stringify(requests)}) {
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
      const response = await fn.default.fetch(new Request('http://localhost/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
          ...(modern ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method } : { 'mcp-protocol-version': '2025-11-25' }) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: modern ? { ...params, _meta: meta } : params }),
      }));
      body = await response.json();
      if (!body.result) throw new Error(method + ': ' + JSON.stringify(body));
    }
    const builtins = process.moduleLoadList.filter((name) => name.startsWith('NativeModule ')).map((name) => name.slice(13));
    console.log(JSON.stringify({ modules: await globalThis.loadedModules(), builtins, codeCache: fn.codeCache?.status, result: body.result }));
    process.exit(0); // a mount's connection would keep the process up`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', TRACE, '--input-type=module', '-e', script], { env: { PATH: process.env.PATH!, ...env } });
  const root = pathToFileURL(dirname(dirname(path))).href;
  const { modules, builtins, codeCache, result } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { modules: string[]; builtins: string[]; codeCache: string; result: Record<string, unknown> };
  // The start-up code came from the cache npm run build made for this Node, not compiled (test/artifact/code-cache.test.ts).
  expect(codeCache).toBe('used');
  return { files: modules.filter((url) => url.startsWith(root)).map((url) => url.slice(root.length + 1)), builtins, result };
}

const filesLoadedBy = async (...args: Parameters<typeof run>) => (await run(...args)).files;

test.each([['2025-11-25', false], ['2026-07-28', true]])('a cold start answers its first tools/list on the %s wire from the bundle entry alone, no chunk', async (_, modern) => {
  expect(await filesLoadedBy([['tools/list', modern]])).toEqual(['api/mcp.js']);
});

test('the start-up script requires no file of the bundle (a chunk it required would load at start, unseen by the trace of imports)', () => {
  const script = readFileSync(builtFunctionPath('api/mcp').replace(/\.js$/, '.script.js'), 'utf8');
  expect(script.match(/require\("\.{1,2}\/[^"]*"\)/g) ?? []).toEqual([]);
});

test('a tools/call whose arguments the quick check accepts loads no schema chunk; one it cannot vouch for loads it, which reaches the helpers chunk by itself', async () => {
  const valid = await filesLoadedBy([['tools/list', false], ['tools/call', false, { name: 'chat_with_agent', arguments: { message: 'hi' } }]]);
  expect(valid[0]).toBe('api/mcp.js');
  expect(valid.filter((file) => file.startsWith('chunks/chat-schema-'))).toEqual([]);
  const invalid = await filesLoadedBy([['tools/list', false], ['tools/call', false, { name: 'chat_with_agent', arguments: { message: '' } }]]);
  expect(invalid[0]).toBe('api/mcp.js');
  expect(invalid.some((file) => file.startsWith('chunks/chat-schema-'))).toBe(true);
});

test('a first chat call of the demo agent does not load Node\'s WebCrypto: its random ids come from node:crypto, which its MACs load anyway', async () => {
  const { builtins, result } = await run([['tools/call', false, { name: 'chat_with_agent', arguments: { message: 'hi' } }]]);
  expect(result.isError).toBeUndefined();
  expect(builtins).toContain('crypto');
  expect(builtins.filter((name) => name.includes('webcrypto'))).toEqual([]);
});

test('a first call to an agent that streams its reply (OpenAI-compatible) is answered from the entry alone: its SSE reader is in it', { timeout: 30_000 }, async () => {
  const upstream = await startUpstream();
  try {
    const { files, result } = await run([['tools/call', false, { name: 'chat_with_agent', arguments: { message: 'streamed' } }]], { AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'm' });
    expect(result).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('streamed') }] });
    expect(result.isError).toBeUndefined();
    expect(files).toEqual(['api/mcp.js']);
  } finally {
    upstream.stop();
  }
});

test('with a token budget set, the first tools/list still loads the entry alone; the first chat call loads the budgets\' chunk, which counts it and refuses the next', { timeout: 30_000 }, async () => {
  const script = readFileSync(builtFunctionPath('api/mcp').replace(/\.js$/, '.script.js'), 'utf8');
  expect(script).not.toContain('createTokenBudgets');
  const upstream = await startUpstream();
  try {
    // The upstream reports 100 input and 20 output tokens for a one-message call: the first spends the whole budget.
    const env = { AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'm', TOKEN_BUDGET_CALLER: '100/1d' };
    expect(await filesLoadedBy([['tools/list', false]], env)).toEqual(['api/mcp.js']);
    const chat: [string, boolean, Record<string, unknown>] = ['tools/call', false, { name: 'chat_with_agent', arguments: { message: 'counted' } }];
    const { files, result } = await run([chat, chat], env);
    expect(files[0]).toBe('api/mcp.js');
    expect(files.filter((file) => file.startsWith('chunks/token-budgets-'))).toHaveLength(1);
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('Token budget spent: this caller may spend 100 tokens every day (TOKEN_BUDGET_CALLER)') }] });
    expect(await upstream.requestsFor('counted')).toHaveLength(1);
  } finally {
    upstream.stop();
  }
});

test('a mounted server\'s tool answers through the MCP SDK client\'s chunk, which carries its own copy of the SSE parser', { timeout: 30_000 }, async () => {
  const docs = await startDownstream('docs');
  try {
    const { files, result } = await run([['tools/call', false, { name: 'docs.echo', arguments: { text: 'through the mount' } }]], {
      MCP_MOUNTS: JSON.stringify([{ name: 'docs', url: docs.url }]),
    });
    expect(result).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('through the mount') }] });
    expect(files[0]).toBe('api/mcp.js');
    expect(files.length).toBeGreaterThan(1);
  } finally {
    await docs.close();
  }
});

test('with an agent of every format configured, the first tools/list still loads the entry alone, and a call loads its format\'s chunk', async () => {
  const agents = ['openai-responses', 'anthropic', 'ai-sdk', 'a2a'].map((format) => ({ id: format, format, url: 'http://127.0.0.1:9/v1', model: 'm' }));
  const env = { AGENTS: JSON.stringify(agents), AGENT_TIMEOUT_MS: '2000' };
  expect(await filesLoadedBy([['tools/list', false]], env)).toEqual(['api/mcp.js']);
  const files = await filesLoadedBy([['tools/list', false], ['tools/call', false, { name: 'chat_with_agent', arguments: { agent_id: 'anthropic', message: 'hi' } }]], env);
  expect(files[0]).toBe('api/mcp.js');
  expect(files.filter((file) => /^chunks\/(anthropic|responses|ai-sdk|a2a)-/.test(file)).map((file) => file.split('-')[0])).toEqual(['chunks/anthropic']);
});
