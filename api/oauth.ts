/** The built-in OAuth 2.1 authorization server (/.well-known/oauth-authorization-server, /oauth/*), when AUTH_SERVER_KEY is set. */

import { createConfiguredHandler } from '../lib/http/configured.js';
import { createAuthorizationServerHandler } from '../lib/auth/authorization-server/handler.js';

export default {
  fetch: createConfiguredHandler(() => createAuthorizationServerHandler()),
};
