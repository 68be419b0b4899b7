/** RFC 9728 Protected Resource Metadata (/.well-known/oauth-protected-resource[/mcp|/api/mcp]). */

import { createConfiguredHandler } from '../lib/http/configured.js';
import { createProtectedResourceHandler } from '../lib/auth/metadata.js';

export default {
  fetch: createConfiguredHandler(() => createProtectedResourceHandler()),
};
