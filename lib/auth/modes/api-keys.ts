/**
 * Sign-in by API key (MCP_API_KEYS, docs/api-keys.md): a token with the key prefix is a key, checked against the
 * configured hashes; the principal is the key's name, kind `api-key` (its state keyed `key:<name>`, principalKey).
 * There is no authorization server to point to: mcp.json says to send the key, and the challenge names no metadata.
 */

import { isApiKeyClaim } from '../api-key.js';
import { createApiKeyCheck, readApiKeys } from '../api-keys.js';
import { AUTH_TYPE, type SignInMode } from './mode.js';

const CREDENTIALS = 'API keys';

export const apiKeyMode: SignInMode = {
  kind: 'api-key',
  credentials: CREDENTIALS,
  principalName: 'an API key\'s principal',
  owns: (token) => isApiKeyClaim(token.text),
  off: 'This server accepts no API keys.',
  read(env) {
    const keys = readApiKeys(env);
    if (!keys) return undefined;
    const check = createApiKeyCheck(keys);
    return {
      kind: 'api-key',
      credentials: CREDENTIALS,
      recognises: (token) => isApiKeyClaim(token.text),
      verify: async (token) => check(token),
      startup: `API keys (${keys.keys.length} in MCP_API_KEYS)`,
      health: { mode: 'api-keys' },
      discovery: () => ({ type: AUTH_TYPE.apiKey, header: 'Authorization', scheme: 'Bearer' }),
      besides: 'apiKeys',
      rates: keys.rates,
    };
  },
};
