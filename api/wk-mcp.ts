/** /.well-known/mcp.json and the MCP Server Card at /mcp/server-card. */

import { createConfiguredHandler } from '../lib/http/configured.js';
import { createDiscoveryHandler } from '../lib/discovery/documents.js';

export default {
  fetch: createConfiguredHandler(() => createDiscoveryHandler()),
};
