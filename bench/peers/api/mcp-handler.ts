/** The peer on `mcp-handler` 2.4.0, as its README deploys it: one handler serving both eras. */

import { createMcpHandler } from 'mcp-handler';
import { CONFIG, NAME, chat } from '../lib/chat-tool.js';

const handler = createMcpHandler((server) => {
  server.registerTool(NAME, CONFIG, async (args) => chat(args));
}, { serverInfo: { name: 'peer-mcp-handler', version: '0.0.0' } });

export default { fetch: handler };
