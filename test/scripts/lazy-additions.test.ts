/**
 * scripts/lazy-additions.mjs: the function bundle lists a deployment's additions from a description written at
 * build time and loads their code, zod included, with the first call. Built here from a copy of the project whose
 * tools/index.ts serves the notes example (tools, a resource, a prompt, two in-process agents, a skill).
 */

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp } from '../../lib/app.js';
import { describeAdditions } from '../../lib/define/manifest.js';
import exampleAdditions from '../../examples/tools/index.js';
// @ts-expect-error plain ESM script without type declarations
import { bundleOptions, dropBareRuntimeImport } from '../../scripts/bundle-functions.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TRACE = fileURLToPath(new URL('../support/import-trace.mjs', import.meta.url));
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

type Message = { method: string; params?: Record<string, unknown> };
let dir: string;
let outdir: string;
let zodFiles: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agent-mcp-lazy-additions-'));
  for (const file of ['api', 'lib', 'tools', 'scripts', 'examples', 'package.json']) cpSync(join(ROOT, file), join(dir, file), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'tools/index.ts'), "export { default } from '../examples/tools/index.js';\n");
  outdir = join(dir, 'out');
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  const { metafile } = await build({ ...bundleOptions('api/mcp', join(dir, 'api/mcp.ts'), outdir), absWorkingDir: dir }) as { metafile: Metafile };
  expect(log.mock.calls.map((c) => String(c[0]))).toContain('bundle: tools/index.ts is listed from its description; its code loads with the first call');
  log.mockRestore();
  dropBareRuntimeImport(metafile, 'api/mcp.ts', dir);
  writeFileSync(join(outdir, 'package.json'), '{ "type": "module" }\n');
  zodFiles = Object.entries(metafile.outputs)
    .filter(([, output]) => Object.keys(output.inputs).some((input) => input.includes('node_modules/zod/')))
    .map(([path]) => relative(outdir, join(dir, path)));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each reply of a fresh process that imports the bundle and sends `messages`, and the bundle files loaded after each. */
function runBundle(messages: Message[]): { replies: any[]; loaded: string[][] } {
  const script = `
    const { default: fn } = await import(${JSON.stringify(pathToFileURL(join(outdir, 'api/mcp.js')).href)});
    const replies = [], loaded = [];
    for (const [i, message] of ${JSON.stringify(messages)}.entries()) {
      const response = await fn.fetch(new Request('http://localhost/mcp', { method: 'POST', headers: ${JSON.stringify(HEADERS)}, body: JSON.stringify({ jsonrpc: '2.0', id: i, ...message }) }));
      replies.push(await response.json());
      loaded.push(await globalThis.loadedModules());
    }
    console.log(JSON.stringify({ replies, loaded }));`;
  const run = spawnSync(process.execPath, ['--import', TRACE, '--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH!, MCP_LOG: 'off' } });
  expect(run.status, run.stderr).toBe(0);
  const { replies, loaded } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { replies: any[]; loaded: string[][] };
  const base = pathToFileURL(outdir).href;
  return { replies, loaded: loaded.map((urls) => urls.filter((url) => url.startsWith(base)).map((url) => url.slice(base.length + 1))) };
}

/** The same messages answered by the app built from the source, tools/index.ts loaded as it is. */
async function runSource(messages: Message[]): Promise<any[]> {
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
  const handle = createMcpHandler(createDefaultApp({ MCP_LOG: 'off' }, exampleAdditions));
  vi.restoreAllMocks();
  const replies = [];
  for (const [i, message] of messages.entries()) {
    const response = await handle(new Request('http://localhost/mcp', { method: 'POST', headers: HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: i, ...message }) }));
    replies.push(await response.json());
  }
  return replies;
}

describe('a bundle whose tools/index.ts lists zod-defined tools', () => {
  const listings: Message[] = [
    { method: 'tools/list' }, { method: 'resources/list' }, { method: 'prompts/list' }, { method: 'skills/list' },
  ];

  test('lists tools, resources, prompts and skills as the source does, zod\'s JSON Schemas included, without loading zod', async () => {
    const built = runBundle(listings);
    expect(built.replies).toEqual(await runSource(listings));
    expect(built.replies[0].result.tools.find((t: { name: string }) => t.name === 'notes.add').inputSchema.properties.text).toMatchObject({ minLength: 1, maxLength: 2000 });
    expect(zodFiles.length).toBeGreaterThan(0);
    expect(built.loaded.at(-1)!.filter((file) => zodFiles.includes(file))).toEqual([]);
  });

  test('a call loads the tool and validates its arguments with the tool\'s own zod schema, as the source does', async () => {
    const calls: Message[] = [
      { method: 'tools/list' },
      { method: 'tools/call', params: { name: 'notes.add', arguments: { text: '' } } },
      { method: 'prompts/get', params: { name: 'notes.review', arguments: {} } },
      { method: 'tools/call', params: { name: 'chat_with_agent', arguments: { agent_id: 'shout', message: 'hi' } } },
    ];
    const built = runBundle(calls);
    const source = await runSource(calls);
    expect(built.replies[1]).toEqual(source[1]);
    expect(built.replies[1].result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('text') }] });
    expect(built.replies[2]).toEqual(source[2]);
    // An in-process agent's reply streams from the module loaded on demand.
    expect(built.replies[3].result.structuredContent.reply).toBe(source[3].result.structuredContent.reply);
    expect(built.loaded[1]!.some((file) => zodFiles.includes(file))).toBe(true);
  });
});

describe('what a description cannot hold', () => {
  test.each([
    [{ tools: [{ name: 'x', description: 'x', run: () => 'x', helper: () => 1 }] }, 'tools[0].helper is a function, which only its module can hold.'],
    [{ resources: [{ uri: 'a://b', name: 'b', read: () => [], _meta: { at: new Date(0) } }] }, 'resources[0]._meta.at is not plain data, which only its module can hold.'],
  ])('a handler the kind does not have, or a value that is not plain data, is a TypeError naming it (%#)', (additions, message) => {
    expect(() => describeAdditions(additions as never)).toThrow(new TypeError(message));
  });
});
