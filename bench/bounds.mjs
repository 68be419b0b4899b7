/**
 * Memory under hostile load, each against a stated bound (docs/security.md "Bounds"), measured on the server
 * `npm start` runs (the TypeScript sources through tsx):
 * 1. peak RSS while a 200 MB streamed upstream reply is refused at AGENT_MAX_REPLY_BYTES (bound: < 200 MB);
 * 2. RSS across 10,000 anonymous 99 KB chat calls at concurrency 8 against the memory store (bound: < 300 MB at the
 *    peak). The store keeps at most MEMORY_STORE_MAX_BYTES (64 MiB); what V8 keeps around it is bounded by
 *    MEMORY_STORE_HEAP_GROWTH_PERCENT (lib/store/heap.ts), so RSS stays flat near ~100 MB + the store as calls go on.
 * Standalone: `node bench/bounds.mjs` (knobs BENCH_HUGE_CALLS, BENCH_CHAT_CALLS, BENCH_CHAT_CONCURRENCY).
 */

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { round } from './stats.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MB = 2 ** 20;
export const HUGE_REPLY_BOUND_MB = 200;
export const CHAT_BOUND_MB = 300;

function start(args, env, { ipc = false } = {}) {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? ['ipc'] : [])],
  });
  const lines = [];
  child.stderr.on('data', (chunk) => {
    lines.push(String(chunk));
    process.stderr.write(chunk);
  });
  const url = new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      lines.push(String(chunk));
      const match = /listening on (http:\/\/\S+)/.exec(String(chunk));
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
  const ask = (message) => new Promise((resolve) => {
    child.once('message', resolve);
    child.send(message);
  });
  return { url, ask, output: () => lines.join(''), stop: () => child.kill('SIGKILL') };
}

const startAgentMcp = (env) => start(['--expose-gc', '--import', 'tsx', 'bench/serve-local.mjs'], { PORT: '0', ...env }, { ipc: true });

async function chat(mcpUrl, id, message) {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message } } }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`chat call answered HTTP ${response.status}: ${text.slice(0, 200)}`);
  return text;
}

/** Peak RSS while streamed 200 MB replies are refused at the reply cap. */
export async function measureHugeReply(calls = Number(process.env.BENCH_HUGE_CALLS ?? 3)) {
  const upstream = start(['bench/huge-upstream.mjs'], {});
  const server = startAgentMcp({ AGENT_URL: `${await upstream.url}/v1`, AGENT_MODEL: 'bench' });
  try {
    const mcpUrl = `${await server.url}/mcp`;
    await chat(mcpUrl, 0, 'warm up'); // loads the upstream path once, as a warm instance has
    const before = await server.ask('reset');
    const texts = [];
    for (let i = 1; i <= calls; i++) texts.push(await chat(mcpUrl, i, `tell me everything ${i}`));
    const after = await server.ask('rss');
    const refused = texts.every((t) => t.includes("the agent's reply exceeded"));
    const sent = [...upstream.output().matchAll(/sent (\d+) bytes/g)].map((m) => Number(m[1]));
    return {
      calls,
      replyBytesOffered: Number(process.env.BENCH_HUGE_BYTES ?? 200 * MB),
      refusedWithCapError: refused,
      upstreamBytesSentMaxMb: round(Math.max(...sent.slice(1)) / MB, 1),
      rssBeforeMb: round(before.rss / MB),
      rssPeakMb: round(after.peak / MB),
      rssAfterMb: round(after.rss / MB),
      boundMb: HUGE_REPLY_BOUND_MB,
      withinBound: refused && after.peak / MB < HUGE_REPLY_BOUND_MB,
    };
  } finally {
    server.stop();
    upstream.stop();
  }
}

/** RSS across many anonymous 99 KB chat calls against the memory store (the demo agent echoes each message). */
export async function measureChatFlood(calls = Number(process.env.BENCH_CHAT_CALLS ?? 10_000), concurrency = Number(process.env.BENCH_CHAT_CONCURRENCY ?? 8)) {
  const server = startAgentMcp({});
  try {
    const mcpUrl = `${await server.url}/mcp`;
    await chat(mcpUrl, 0, 'warm up');
    const before = await server.ask('reset');
    const samples = [];
    let next = 0;
    const started = Date.now();
    const payload = 'a'.repeat(99_000);
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        const i = ++next;
        await chat(mcpUrl, i, `${i} ${payload}`);
        if (i % 2_000 === 0) samples.push({ calls: i, rssMb: round((await server.ask('rss')).rss / MB) });
      }
    }));
    const seconds = (Date.now() - started) / 1000;
    const after = await server.ask('rss');
    const evictionLogged = /memory store over its budget/.test(server.output());
    return {
      calls,
      messageBytes: 99_000,
      seconds: round(seconds, 1),
      rssBeforeMb: round(before.rss / MB),
      samples,
      rssPeakMb: round(after.peak / MB),
      rssAfterMb: round(after.rss / MB),
      evictionLogged,
      boundMb: CHAT_BOUND_MB,
      withinBound: after.peak / MB < CHAT_BOUND_MB,
    };
  } finally {
    server.stop();
  }
}

export function renderBounds({ hugeReply: h, chatFlood: c }) {
  return [
    '| memory under hostile load (npm start) | bound | before | peak RSS | after | within |', '|---|---|---|---|---|---|',
    `| ${h.calls} streamed ${round(h.replyBytesOffered / MB)} MB upstream replies, refused at AGENT_MAX_REPLY_BYTES (upstream got ≤ ${h.upstreamBytesSentMaxMb} MB out) | < ${h.boundMb} MB | ${h.rssBeforeMb} MB | ${h.rssPeakMb} MB | ${h.rssAfterMb} MB | ${h.withinBound ? 'yes' : 'no'} |`,
    `| ${c.calls} anonymous 99 KB chat calls, memory store (${c.seconds} s; RSS ${c.samples.map((s) => `${s.rssMb}`).join(' → ')} MB every 2,000) | < ${c.boundMb} MB | ${c.rssBeforeMb} MB | ${c.rssPeakMb} MB | ${c.rssAfterMb} MB | ${c.withinBound ? 'yes' : 'no'} |`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log('bench: memory under a 200 MB upstream reply');
  const hugeReply = await measureHugeReply();
  console.log(JSON.stringify(hugeReply));
  console.log('bench: memory across anonymous 99 KB chat calls');
  const chatFlood = await measureChatFlood();
  console.log(JSON.stringify(chatFlood));
  console.log(`\n${renderBounds({ hugeReply, chatFlood })}`);
}
