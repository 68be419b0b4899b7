/**
 * Bytes a server allocates per relayed chunk (issue 48), which moves with the code and not with the machine's load:
 * N streamed calls as bench/streaming.mjs makes them, and V8's sampling heap profiler in the server
 * (bench/heap-sampling.mjs, collected objects included) over a window in which the upstream wrote C chunks.
 * `node bench/stream-allocations.mjs [--calls N] [--rate R] [--seconds S] [--window MS] [--cpu] <handler module>...`
 * (bench/stream-relay.mjs among them measures the relay floor)
 * prints, per module, KB allocated per chunk and the functions that allocated most; with `--cpu`, the CPU profiler's
 * share of busy time per function instead.
 */

import { Agent } from 'node:http';
import { parseArgs } from 'node:util';
import { startServer } from './process.mjs';
import { call } from './streaming.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { calls: { type: 'string', default: '200' }, rate: { type: 'string', default: '50' }, seconds: { type: 'string', default: '10' }, window: { type: 'string', default: '4000' }, cpu: { type: 'boolean', default: false } },
});
const calls = Number(values.calls);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

for (const module of positionals) {
  const upstream = await startServer(['bench/stream-upstream.mjs'], { STREAM_RATE: values.rate, STREAM_SECONDS: values.seconds });
  // A handler module behind srvx, or the relay floor itself (bench/stream-relay.mjs).
  const served = module.endsWith('stream-relay.mjs') ? [module] : ['bench/serve-built.mjs', module];
  const server = await startServer(['--import', './bench/heap-sampling.mjs', ...served], {
    AGENT_URL: `${upstream.url}/v1`, AGENT_MODEL: 'bench', AGENT_FORMAT: 'openai', MCP_MAX_CONCURRENT_CALLS: String(Math.max(16, calls)),
  });
  try {
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const results = [];
    for (let i = 0; i < calls; i++) {
      results.push(call(agent, `${server.url}/mcp`, i));
      if (i % 50 === 49) await sleep(100);
    }
    for (let waited = 0; (await upstream.ask('count')).open < calls && waited < 3_000; waited += 100) await sleep(100);
    await sleep(500);
    await server.ask(values.cpu ? 'cpu-start' : 'heap-start');
    const before = await upstream.ask('count');
    await sleep(Number(values.window));
    const after = await upstream.ask('count');
    const profile = await server.ask(values.cpu ? 'cpu-stop' : 'heap-stop');
    const chunks = after.chunks - before.chunks;
    const done = await Promise.all(results);
    agent.destroy();
    const completed = `${chunks} chunks, ${done.filter((x) => x.ok).length}/${calls} completed`;
    if (values.cpu) {
      console.log(`${module}: busy ${(profile.busyShare * 100).toFixed(1)}% of the window (${completed}); share of busy time, self:`);
      for (const [name, share] of profile.top) console.log(`  ${(share * 100).toFixed(1).padStart(5)}%  ${name}`);
    } else {
      console.log(`${module}: ${(profile.total / chunks / 1024).toFixed(2)} KB per chunk (${completed})`);
      for (const [name, bytes] of profile.top) console.log(`  ${(bytes / chunks).toFixed(0).padStart(6)} B  ${name}`);
    }
  } finally {
    upstream.stop();
    server.stop();
  }
}
process.exit(0);
