/** The peer on `@modelcontextprotocol/server` 2.4.0: `createMcpHandler` with a fresh server per request. */

import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { CONFIG, NAME, chat } from '../lib/chat-tool.js';

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'peer-sdk-server', version: '0.0.0' });
  server.registerTool(NAME, CONFIG, async (args) => chat(args));
  return server;
});

export default { fetch: handler.fetch };
