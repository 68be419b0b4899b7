/**
 * One cold start: this fresh process imports a built function and answers its first tools/list.
 * Prints {importMs, firstMs, totalMs} as JSON. Run by bench/run.mjs, once per sample.
 */

const started = performance.now();
const module = await import(process.argv[2]);
const imported = performance.now();
const response = await module.default.fetch(new Request('http://localhost/mcp', {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
}));
const body = await response.json();
const done = performance.now();
if (!Array.isArray(body.result?.tools)) throw new Error(`unexpected reply: ${JSON.stringify(body)}`);
console.log(JSON.stringify({ importMs: imported - started, firstMs: done - imported, totalMs: done - started }));
