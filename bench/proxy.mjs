/**
 * Proxy overhead: the added latency of a `chat_with_agent` tools/call through agent-mcp (the built artifact,
 * over loopback HTTP) over calling the same fast upstream directly, sequentially, p50 and p99.
 * Every call has a distinct message, so the retry cache never answers for the upstream.
 */

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CALLS = Number(process.env.BENCH_PROXY_CALLS ?? 2000);
const WARMUP = 200;

function start(args, env = {}) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      const match = /listening on (http:\/\/\S+)/.exec(String(chunk));
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
  return { child, url };
}

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };

async function measure(count, once) {
  const latencies = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await once(i);
    latencies.push(performance.now() - t);
  }
  return latencies;
}

export async function measureProxyOverhead() {
  const upstream = start(['bench/fast-upstream.mjs']);
  const upstreamUrl = await upstream.url;
  const ours = start(['bench/serve-built.mjs'], { AGENT_URL: `${upstreamUrl}/v1`, AGENT_MODEL: 'bench', AGENT_FORMAT: 'openai' });
  const oursUrl = await ours.url;
  try {
    const direct = async (i) => {
      const response = await fetch(`${upstreamUrl}/v1/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: `direct ${i}` }] }),
      });
      await response.text();
    };
    const proxied = async (i) => {
      const response = await fetch(`${oursUrl}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message: `proxied ${i} ${Math.random()}` } } }),
      });
      const body = await response.json();
      if (body.result?.isError || !body.result) throw new Error(`unexpected reply: ${JSON.stringify(body)}`);
    };
    await measure(WARMUP, direct);
    await measure(WARMUP, proxied);
    // Interleave rounds so drift on a shared 2-core machine hits both sides alike.
    const d = [], p = [];
    for (let round = 0; round < 10; round++) {
      d.push(...await measure(CALLS / 10, (i) => direct(round * CALLS + i)));
      p.push(...await measure(CALLS / 10, (i) => proxied(round * CALLS + i)));
    }
    const r = (x) => Math.round(x * 1000) / 1000;
    return {
      calls: CALLS,
      directP50Ms: r(pct(d, 0.5)), directP99Ms: r(pct(d, 0.99)),
      proxiedP50Ms: r(pct(p, 0.5)), proxiedP99Ms: r(pct(p, 0.99)),
      overheadP50Ms: r(pct(p, 0.5) - pct(d, 0.5)), overheadP99Ms: r(pct(p, 0.99) - pct(d, 0.99)),
    };
  } finally {
    upstream.child.kill();
    ours.child.kill();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await measureProxyOverhead());
