/** /.well-known/mcp.json and the MCP Server Card at /mcp/server-card. */

import { createDiscoveryHandler } from '../lib/discovery/documents.js';

let handler: ((request: Request) => Promise<Response>) | undefined;

export default {
  fetch(request: Request): Promise<Response> {
    handler ??= createDiscoveryHandler();
    return handler(request);
  },
};
