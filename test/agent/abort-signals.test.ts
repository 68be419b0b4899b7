/**
 * A chat call makes an AbortSignal only where an API takes one (lib/server/cancellation.ts): on Node 20 each costs more
 * than much of the call. The function is called as Vercel calls it, with a Web Request; the demo agent reads no signal,
 * so its call makes none on either wire, and does not ask for the request's. That a cancelled call still stops its upstream is failures.test.ts's
 * "cancellation reaches the upstream", over loopback HTTP.
 */

import { describe, expect, test } from 'vitest';
import { createMcpHandler } from '../../api/mcp.js';
import { createDefaultApp } from '../../lib/app.js';
import { META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION } from '../../lib/protocol/meta.js';
import { controllersMadeBy } from '../support/abort-controllers.js';
import { POST_HEADERS } from '../support/server.js';

const handler = createMcpHandler(createDefaultApp({ MCP_LOG: 'off' }));

class SignalCountingRequest extends Request {
  signalReads = 0;

  override get signal(): AbortSignal {
    this.signalReads += 1;
    return super.signal;
  }
}

const WIRES = {
  legacy: (message: string) => ({
    headers: { 'mcp-protocol-version': '2025-11-25' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'chat_with_agent', arguments: { message } } },
  }),
  modern: (message: string) => ({
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'chat_with_agent' },
    body: {
      jsonrpc: '2.0', id: 1, method: 'tools/call',
      params: { name: 'chat_with_agent', arguments: { message }, _meta: { [META_PROTOCOL_VERSION]: '2026-07-28', [META_CLIENT_CAPABILITIES]: {} } },
    },
  }),
};

describe('a chat call with an agent that reads no signal', () => {
  test.each(Object.keys(WIRES) as Array<keyof typeof WIRES>)('makes no AbortSignal on the %s wire', async (wire) => {
    const send = async (message: string) => {
      const { headers, body } = WIRES[wire](message);
      const request = new SignalCountingRequest('http://localhost/mcp', { method: 'POST', headers: { ...POST_HEADERS, host: 'localhost', ...headers }, body: JSON.stringify(body) });
      let reply: any;
      const made = await controllersMadeBy(async () => {
        reply = await (await handler(request)).json();
      });
      await new Promise((resolve) => setImmediate(resolve));
      return { made, reply, signalReads: request.signalReads };
    };
    await send('warm up'); // the first request of an instance sets up what later ones share
    const { made, reply, signalReads } = await send('hello');
    expect(reply.result.structuredContent.reply).toContain('You said: "hello"');
    expect(made).toBe(0);
    // An adapter makes a request's signal on demand, with a listener on the socket (srvx); a call over at once needs none.
    expect(signalReads).toBe(0);
  });
});
