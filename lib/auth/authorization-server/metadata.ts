/**
 * The built-in server's RFC 8414 metadata and its JWKS. The metadata says what the 2026 clients look for:
 * Client ID Metadata Documents with `none` (Claude uses a document only when both are there), RFC 9207 `iss` in
 * authorization responses (ChatGPT's stable callback needs it), PKCE S256 only, and registration (RFC 7591).
 * Its `issuer` is the deployment's public origin, so each preview deployment is its own issuer.
 */

import { ENDPOINTS } from './paths.js';

export function authorizationServerMetadata(origin: string, scopes: string[]) {
  const at = (path: string) => `${origin}${path}`;
  return {
    issuer: origin,
    authorization_endpoint: at(ENDPOINTS.authorize),
    token_endpoint: at(ENDPOINTS.token),
    registration_endpoint: at(ENDPOINTS.register),
    revocation_endpoint: at(ENDPOINTS.revoke),
    jwks_uri: at(ENDPOINTS.jwks),
    scopes_supported: [...scopes, 'offline_access'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${origin}/`,
  };
}
