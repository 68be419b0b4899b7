/**
 * `node bench/mounts.mjs`: tools/list latency after a cold start with mounted MCP servers that are up,
 * slow to start, down, or hung. Each sample is a fresh Node process that imports the MCP function (the
 * source through tsx; `--bundled` for an esbuild bundle made as scripts/bundle-functions.mjs makes one;
 * `--built` for the `vercel build` artifact) with MCP_MOUNTS set, and times its first
 * tools/list (connections start on the first request, so this includes connecting and listing) and a
 * second one. The mounted servers (official SDK 1.x, stateful sessions) run in this process.
 * Numbers are printed, never asserted; they are noisy on a shared machine.
 */

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const SLOW_MS = Number(process.env.BENCH_MOUNT_SLOW_MS ?? 400);
const WAIT_MS = Number(process.env.BENCH_MOUNT_WAIT_MS ?? 1500);
const BUILT = process.argv.includes('--built');

/** A mountable server with `tools` echo tools; `delayMs` holds each initialize; `mode` 'fail' answers 500, 'hang' never answers. */
async function startServer({ tools = 5, delayMs = 0, mode = 'ok' } = {}) {
  const sessions = new Map();
  const http = createServer(async (request, response) => {
    if (mode === 'fail') return void response.writeHead(500).end('down');
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    let transport = sessions.get(request.headers['mcp-session-id']);
    if (!transport) {
      if (mode === 'hang') return;
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => sessions.set(id, transport) });
      const server = new McpServer({ name: 'bench-downstream', version: '1.0.0' });
      for (let i = 0; i < tools; i++) {
        server.registerTool(`tool_${i}`, { description: `Echo ${i}.`, inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
      }
      await server.connect(transport);
    }
    await transport.handleRequest(request, response, body);
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${http.address().port}/mcp`, close: () => { http.closeAllConnections(); http.close(); } };
}

const CHILD = `
const target = process.env.BENCH_TARGET;
const started = performance.now();
const module = await import(target);
const imported = performance.now();
const list = async (id) => {
  const t = performance.now();
  const response = await module.default.fetch(new Request('http://localhost/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
  }));
  const text = await response.text();
  const json = JSON.parse(text.startsWith('{') ? text : text.split('\\n').filter((l) => l.startsWith('data: ')).at(-1).slice(6));
  if (!json.result) throw new Error(text);
  return { ms: performance.now() - t, tools: json.result.tools.length };
};
const first = await list(1);
const second = await list(2);
console.log(JSON.stringify({ importMs: imported - started, firstMs: first.ms, tools: first.tools, secondMs: second.ms }));
process.exit(0);
`;

const BUNDLED = process.argv.includes('--bundled');

/** api/mcp.ts bundled the way scripts/bundle-functions.mjs bundles a function, into a temporary directory. */
async function bundleToTemp() {
  const { build } = await import('esbuild');
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const outdir = mkdtempSync(`${tmpdir()}/agent-mcp-bench-`);
  await build({
    entryPoints: { mcp: `${ROOT}api/mcp.ts` }, outdir, bundle: true, splitting: true, format: 'esm', platform: 'node', target: 'node20',
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  writeFileSync(`${outdir}/package.json`, '{ "type": "module" }\n');
  return `${outdir}/mcp.js`;
}

const TARGET = BUILT ? (await import('../scripts/load-built.mjs')).builtFunctionPath('api/mcp')
  : BUNDLED ? await bundleToTemp()
  : `${ROOT}api/mcp.ts`;
const PLAIN_NODE = BUILT || BUNDLED;

function sample(mounts) {
  const env = { ...process.env, BENCH_TARGET: TARGET, MCP_MOUNTS_WAIT_MS: String(WAIT_MS) };
  if (mounts.length) env.MCP_MOUNTS = JSON.stringify(mounts);
  else delete env.MCP_MOUNTS;
  const args = [...(PLAIN_NODE ? [] : ['--import', 'tsx']), '--input-type=module', '-e', CHILD];
  // Asynchronously: the mounted servers run on this process's event loop.
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => child.on('exit', (code) => {
    if (code !== 0) return reject(new Error(stderr));
    resolve(JSON.parse(stdout.trim().split('\n').at(-1)));
  }));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;

const [a, b, slow, failing, hung] = await Promise.all([
  startServer(), startServer(), startServer({ delayMs: SLOW_MS }), startServer({ mode: 'fail' }), startServer({ mode: 'hang' }),
]);
// A loopback port nothing listens on: connections are refused.
const closed = createServer();
await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
const refused = `http://127.0.0.1:${closed.address().port}/mcp`;
await new Promise((resolve) => closed.close(resolve));
const SCENARIOS = [
  ['no mounts', []],
  ['2 mounts up', [{ name: 'a', url: a.url }, { name: 'b', url: b.url }]],
  [`1 up + 1 slow (${SLOW_MS} ms to initialize)`, [{ name: 'a', url: a.url }, { name: 'slow', url: slow.url }]],
  ['1 up + 1 refused + 1 HTTP 500', [{ name: 'a', url: a.url }, { name: 'refused', url: refused }, { name: 'failing', url: failing.url }]],
  [`1 up + 1 hung (bounded by MCP_MOUNTS_WAIT_MS=${WAIT_MS})`, [{ name: 'a', url: a.url }, { name: 'hung', url: hung.url }]],
];

const rows = [];
try {
  for (const [label, mounts] of SCENARIOS) {
    const samples = [];
    for (let i = 0; i < RUNS; i++) samples.push(await sample(mounts));
    const first = samples.map((s) => s.firstMs);
    rows.push({
      scenario: label,
      tools: [...new Set(samples.map((s) => s.tools))].join('/'),
      firstListMedianMs: Math.round(median(first)),
      firstListRangeMs: range(first),
      secondListMedianMs: Math.round(median(samples.map((s) => s.secondMs)) * 10) / 10,
      importMedianMs: Math.round(median(samples.map((s) => s.importMs))),
    });
  }
} finally {
  for (const server of [a, b, slow, failing, hung]) server.close();
}

console.log(`tools/list after a cold start (${RUNS} fresh processes each, ${BUILT ? 'built artifact' : BUNDLED ? 'esbuild bundle' : 'source via tsx'}, Node ${process.version})`);
console.log('| scenario | tools listed | first list, median (range) ms | second list ms | import ms |');
console.log('|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.scenario} | ${r.tools} | ${r.firstListMedianMs} (${r.firstListRangeMs}) | ${r.secondListMedianMs} | ${r.importMedianMs} |`);
}
