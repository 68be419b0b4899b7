/**
 * Test support, run as its own process under import-trace.mjs: the deployment's MCP function answers
 * initialize, tools/list and a chat with the default configuration, each carrying a W3C traceparent as a traced
 * client sends it; prints the modules it loaded as JSON.
 */

import handler from '../../api/mcp.js';

const headers = {
  'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25',
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
};
const messages = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1.0.0' } } },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message: 'hello' } } },
];
for (const message of messages) {
  const response = await handler.fetch(new Request('http://localhost/mcp', { method: 'POST', headers, body: JSON.stringify(message) }));
  if (response.status !== 200) throw new Error(`${message.method} answered ${response.status}`);
  await response.text();
}
const loaded = await (globalThis as unknown as { loadedModules(): Promise<string[]> }).loadedModules();
console.log(JSON.stringify(loaded));
