/**
 * Test support, run as its own process under import-trace.mjs with AUTH_ISSUER set: the deployment's MCP
 * function and discovery functions answer requests that carry no token; prints the modules loaded as JSON.
 */

import mcp from '../../api/mcp.js';
import discovery from '../../api/wk-mcp.js';
import metadata from '../../api/wk-oauth-protected-resource.js';

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1.0.0' } } });
const statuses = [
  (await mcp.fetch(new Request('http://localhost/mcp', { method: 'POST', headers, body }))).status,
  (await mcp.fetch(new Request('http://localhost/mcp', { method: 'OPTIONS', headers: { origin: 'http://localhost:1', 'access-control-request-method': 'POST' } }))).status,
  (await discovery.fetch(new Request('http://localhost/.well-known/mcp.json'))).status,
  (await metadata.fetch(new Request('http://localhost/.well-known/oauth-protected-resource/mcp'))).status,
];
if (statuses.join() !== '401,204,200,200') throw new Error(`unexpected statuses ${statuses.join()}`);
const loaded = await (globalThis as unknown as { loadedModules(): Promise<string[]> }).loadedModules();
console.log(JSON.stringify(loaded));
