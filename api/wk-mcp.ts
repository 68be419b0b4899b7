/** /.well-known/mcp.json, the MCP Server Card at /mcp/server-card, and the AI Catalog at /.well-known/ai-catalog.json. */

import { createConfiguredHandler } from '../lib/http/configured.js';
import { createDiscoveryHandler } from '../lib/discovery/documents.js';

export default {
  fetch: createConfiguredHandler(() => createDiscoveryHandler()),
};
