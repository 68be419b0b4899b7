/**
 * One cold start: this fresh process imports a built function (argv[2]) and answers its first tools/list, on the
 * 2025-11-25 wire or, with argv[3] `modern`, on the 2026-07-28 wire (a server of one era answers that era only);
 * with argv[3] `call`, its first request is a tools/call of chat_with_agent (2025-11-25), which the demo agent
 * answers. Prints {runtimeMs, importMs, firstMs, cpuMs} as JSON (last line). Run by bench/cold-start.mjs, once per
 * sample.
 *
 * Node sets up parts of itself on first use: its Web API (undici: Request, Response, Headers), ~30 ms here,
 * and the stdout pipe and console, ~8 ms. A serverless runtime has done both before it calls a handler: it
 * built the Request, and it forwards the function's logs. So that set-up is timed apart (runtimeMs), and the
 * function's own cold start (import + first request) starts after it, for every target alike.
 */

const t0 = performance.now();
await new Response(new Request('http://localhost/', { method: 'POST', body: '{}' }).body).text();
console.log('cold start: runtime ready');
const t1 = performance.now();
const cpu1 = process.cpuUsage();
const module = await import(process.argv[2]);
const t2 = performance.now();
const modern = process.argv[3] === 'modern';
const call = process.argv[3] === 'call';
const response = await module.default.fetch(new Request('http://localhost/mcp', {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(modern ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' } : { 'mcp-protocol-version': '2025-11-25' }),
  },
  body: JSON.stringify(modern
    ? { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }
    : call ? { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message: 'cold' } } }
      : { jsonrpc: '2.0', id: 1, method: 'tools/list' }),
}));
const text = await response.text();
const t3 = performance.now();
const cpu = process.cpuUsage(cpu1);

// A reply may come as JSON or as one SSE event, depending on the server.
const json = response.headers.get('content-type')?.startsWith('text/event-stream')
  ? text.split('\n').filter((line) => line.startsWith('data:')).at(-1)?.slice(5)
  : text;
const result = JSON.parse(json ?? 'null')?.result;
const answered = call ? result?.isError !== true && result?.content?.[0]?.text?.includes('cold') : result?.tools?.some((tool) => tool.name === 'chat_with_agent');
if (!answered) throw new Error(`unexpected reply: ${text}`);
// CPU time (user + system) of import + first request: on a shared machine it moves less than wall time.
console.log(JSON.stringify({ runtimeMs: t1 - t0, importMs: t2 - t1, firstMs: t3 - t2, cpuMs: (cpu.user + cpu.system) / 1000 }));
// BENCH_CHILD_EXIT=reply: end here, so that an instruction count holds the import and the first reply and not what
// the function does after it (bench/cold-start-instructions.mjs); by default the process ends by itself.
if (process.env.BENCH_CHILD_EXIT === 'reply') process.exit(0);
