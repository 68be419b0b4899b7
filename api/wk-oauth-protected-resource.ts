/** RFC 9728 Protected Resource Metadata (/.well-known/oauth-protected-resource[/mcp|/api/mcp]). */

import { createProtectedResourceHandler } from '../lib/auth/metadata.js';

let handler: ((request: Request) => Promise<Response>) | undefined;

export default {
  fetch(request: Request): Promise<Response> {
    handler ??= createProtectedResourceHandler();
    return handler(request);
  },
};
