/**
 * An `ai-sdk` agent whose upstream answers something other than a UI message stream (here an OpenAI stream) ends
 * the call at once with an isError naming the mismatch, and closes its request: the reply it will not read is not
 * left streaming to nobody until AGENT_TIMEOUT_MS or its end.
 */

import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMcpHandler } from '../../../api/mcp.js';
import { agentDefinitions } from '../../../lib/agent/index.js';
import { createApp } from '../../../lib/app.js';
import { USAGE_META } from '../../../lib/usage/report.js';
import { startUpstream, type Upstream, type UpstreamLogEntry } from '../../support/upstream.js';

let upstream: Upstream;
let handle: (request: Request) => Promise<Response>;
beforeAll(async () => {
  upstream = await startUpstream();
  const env = {
    AGENT_TIMEOUT_MS: '20000',
    AGENTS: JSON.stringify([{ id: 'misrouted', format: 'ai-sdk', url: `${upstream.url}/v1/chat/completions` }]),
  };
  handle = createMcpHandler(createApp({ definitions: [agentDefinitions(env)], stateSecret: 's'.repeat(32), origin: { local: true, allowedOrigins: new Set() } }));
});
afterAll(() => upstream.stop());

test('an upstream stream of another kind: an isError at once, and the upstream sees its connection closed', async () => {
  // About 8 s of OpenAI stream in 8-character pieces.
  const message = `fault:pace 100 ${crypto.randomUUID()} ${'a much longer answer, '.repeat(30)}`;
  const response = await handle(new Request('http://localhost/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { agent_id: 'misrouted', message } } }),
  }));
  const answered = Date.now();
  expect((await response.json()).result).toEqual({
    content: [{ type: 'text', text: 'Agent misrouted: the upstream\'s stream is not an AI SDK UI message stream.' }],
    isError: true,
    // The request was sent, and what it spent is unknown.
    _meta: { [USAGE_META]: { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, modelRequests: 1, unknownRequests: 1, estimated: false } },
  });
  const ours = (e: UpstreamLogEntry) => e.kind === 'closed' && e.body?.messages?.at(-1)?.parts?.[0]?.text === message;
  const closed = (await upstream.waitFor((entries) => entries.some(ours), 3_000)).find(ours)!;
  expect(closed.at - answered).toBeLessThan(1_500);
}, 30_000);
