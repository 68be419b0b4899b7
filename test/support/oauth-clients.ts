/**
 * Test support: an OAuth client's state kept in memory, as the official SDKs' OAuthClientProvider asks for it
 * (both SDKs take the same shape); `authorizationUrl` is where a browser would have been sent. By default it
 * registers for the authorization_code grant only; `sdk-default` leaves `grant_types` unset, so the SDK registers
 * what the Inspector and mcp-remote register: authorization_code and refresh_token. `clientMetadataUrl` makes it a
 * Client ID Metadata Document client where the server supports them.
 */

import type { OAuthClientInformationMixed, OAuthClientProvider, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';

export interface MemoryProviderOptions {
  redirect: string;
  metadata?: 'code-only' | 'sdk-default';
  clientMetadataUrl?: string;
  name?: string;
}

/** `saved` is what the SDK saved (`state` would be the SDK's own hook for the OAuth state parameter). */
export type MemoryProvider = OAuthClientProvider & { authorizationUrl?: URL; saved: { client?: OAuthClientInformationMixed; tokens?: OAuthTokens } };

export function memoryProvider({ redirect, metadata = 'code-only', clientMetadataUrl, name = 'agent-mcp test client' }: MemoryProviderOptions): MemoryProvider {
  const state: { client?: OAuthClientInformationMixed; tokens?: OAuthTokens; verifier?: string; discovery?: OAuthDiscoveryState; authorizationUrl?: URL } = {};
  return {
    saved: state,
    get redirectUrl() { return redirect; },
    ...(clientMetadataUrl ? { clientMetadataUrl } : {}),
    get clientMetadata() {
      const base = { client_name: name, redirect_uris: [redirect], response_types: ['code'], token_endpoint_auth_method: 'none', application_type: 'native' };
      return metadata === 'code-only' ? { ...base, grant_types: ['authorization_code'] } : base;
    },
    clientInformation: () => state.client,
    saveClientInformation: (info) => { state.client = info; },
    tokens: () => state.tokens,
    saveTokens: (tokens) => { state.tokens = tokens; },
    redirectToAuthorization: (url) => { state.authorizationUrl = url; },
    saveCodeVerifier: (verifier) => { state.verifier = verifier; },
    codeVerifier: () => state.verifier!,
    saveDiscoveryState: (discovery) => { state.discovery = discovery; },
    discoveryState: () => state.discovery,
    get authorizationUrl() { return state.authorizationUrl; },
  };
}

/** The claims of a JWT, unverified (the test reads what the server put in). */
export const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
