/**
 * Proxy overhead: the added latency of a `chat_with_agent` tools/call over calling the same fast upstream
 * directly, sequentially, p50 and p99, measured two ways:
 * - over HTTP: through agent-mcp served on loopback (bench/serve-built.mjs), so the figure includes the extra
 *   HTTP hop any proxy adds, and three processes sharing the machine;
 * - in process: the built function called in this process, so the figure is what agent-mcp adds to the call.
 * "Directly" is Node's fetch, as a Node program calls an upstream (the figure); the same calls made with
 * node:http as agent-mcp makes them (lib/agent/upstream/transport.ts) are timed too, and the overhead over those
 * is agent-mcp's own work alone, its client's cost left out. Over HTTP, the same calls through the proxy floor
 * (bench/proxy-floor.mjs, behind the same adapter) show what the hop itself costs on this machine, tail included.
 * Every call has a distinct message, so the retry cache never answers for the upstream.
 */

import { pathToFileURL } from 'node:url';
import { keepAliveAgent, postWithHttp } from './http-post.mjs';
import { startServer } from './process.mjs';
import { quantile, round } from './stats.mjs';

const WARMUP = 500;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };

async function measure(count, once) {
  const latencies = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await once(i);
    latencies.push(performance.now() - t);
  }
  return latencies;
}

const callBody = (i) => JSON.stringify({
  jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message: `proxied ${i} ${Math.random()}` } },
});

async function expectResult(response) {
  const body = await response.json();
  if (body.result?.isError || !body.result) throw new Error(`unexpected reply: ${JSON.stringify(body)}`);
}

const httpAgent = keepAliveAgent();

const upstreamBody = (i) => JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: `direct ${i}` }] });
const UPSTREAM_HEADERS = { 'content-type': 'application/json', accept: 'text/event-stream' };

/** `path`: the built api/mcp handler module; `calls`: samples per side. */
export async function measureProxyOverhead(path, calls) {
  const upstream = await startServer(['bench/fast-upstream.mjs']);
  const agentEnv = { AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'bench', AGENT_FORMAT: 'openai' };
  const ours = await startServer(['bench/serve-built.mjs', path], agentEnv);
  const floor = await startServer(['bench/serve-built.mjs', 'bench/proxy-floor.mjs'], agentEnv);
  try {
    // The function reads its configuration from process.env on its first request.
    Object.assign(process.env, agentEnv);
    const { default: fn } = await import(pathToFileURL(path).href);
    const sides = {
      direct: async (i) => {
        const response = await fetch(`${upstream.url}/v1/chat/completions`, { method: 'POST', headers: UPSTREAM_HEADERS, body: upstreamBody(i) });
        await response.text();
      },
      directHttp: (i) => postWithHttp(httpAgent, `${upstream.url}/v1/chat/completions`, UPSTREAM_HEADERS, upstreamBody(i)),
      http: async (i) => expectResult(await fetch(`${ours.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: callBody(i) })),
      floorHttp: async (i) => expectResult(await fetch(`${floor.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: callBody(i) })),
      // With the content-length a request over HTTP has, as bench/in-process.mjs sends.
      inProcess: async (i) => {
        const body = callBody(i);
        const headers = { ...MCP_HEADERS, 'content-length': String(Buffer.byteLength(body)) };
        return expectResult(await fn.fetch(new Request('http://localhost/mcp', { method: 'POST', headers, body })));
      },
    };
    for (const once of Object.values(sides)) await measure(WARMUP, once);
    // Interleave rounds so drift on a shared machine hits every side alike.
    const samples = Object.fromEntries(Object.keys(sides).map((side) => [side, []]));
    for (let r = 0; r < 10; r++) {
      for (const [side, once] of Object.entries(sides)) samples[side].push(...await measure(calls / 10, (i) => once(r * calls + i)));
    }
    const at = (side, q) => quantile(samples[side], q);
    const overhead = (side) => ({
      p50Ms: round(at(side, 0.5), 3), p99Ms: round(at(side, 0.99), 3),
      overheadP50Ms: round(at(side, 0.5) - at('direct', 0.5), 3), overheadP99Ms: round(at(side, 0.99) - at('direct', 0.99), 3),
      // Over the same calls made with node:http: agent-mcp's own work, its HTTP client's cost left out.
      ownP50Ms: round(at(side, 0.5) - at('directHttp', 0.5), 3), ownP99Ms: round(at(side, 0.99) - at('directHttp', 0.99), 3),
    });
    // Over the proxy floor's calls: what agent-mcp adds to the least any proxy over HTTP costs.
    const overFloor = (side) => ({ overFloorP50Ms: round(at(side, 0.5) - at('floorHttp', 0.5), 3), overFloorP99Ms: round(at(side, 0.99) - at('floorHttp', 0.99), 3) });
    return {
      calls,
      direct: { p50Ms: round(at('direct', 0.5), 3), p99Ms: round(at('direct', 0.99), 3) },
      directHttp: { p50Ms: round(at('directHttp', 0.5), 3), p99Ms: round(at('directHttp', 0.99), 3) },
      http: { ...overhead('http'), ...overFloor('http') },
      floorHttp: overhead('floorHttp'),
      inProcess: overhead('inProcess'),
    };
  } finally {
    httpAgent.destroy();
    upstream.stop();
    ours.stop();
    floor.stop();
  }
}
