/**
 * The built-in server's RFC 8414 metadata and its JWKS. The metadata says what the 2026 clients look for:
 * Client ID Metadata Documents with `none` (Claude uses a document only when both are there), RFC 9207 `iss` in
 * authorization responses (ChatGPT's stable callback needs it), PKCE S256 only, and registration (RFC 7591).
 * Its `issuer` is the deployment's public origin, so each preview deployment is its own issuer.
 */

import { hasConfidentialClients, type EnterpriseIdp } from './enterprise/config.js';
import { ID_JAG_PROFILE, JWT_BEARER_GRANT } from './enterprise/grant.js';
import { ENDPOINTS } from './paths.js';

/**
 * With `enterprise` (AUTH_ENTERPRISE_IDPS) ID-JAGs are redeemed, as the JWT bearer grant of the id-jag profile, and
 * the client secrets of confidential enterprise clients are accepted at the token endpoint.
 */
export function authorizationServerMetadata(origin: string, scopes: string[], enterprise?: readonly EnterpriseIdp[]) {
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
    grant_types_supported: ['authorization_code', 'refresh_token', ...(enterprise ? [JWT_BEARER_GRANT] : [])],
    ...(enterprise ? { authorization_grant_profiles_supported: [ID_JAG_PROFILE] } : {}),
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', ...(enterprise && hasConfidentialClients(enterprise) ? ['client_secret_basic', 'client_secret_post'] : [])],
    revocation_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${origin}/`,
  };
}
