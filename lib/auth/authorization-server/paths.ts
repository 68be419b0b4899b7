/**
 * Where the built-in authorization server answers (vercel.json rewrites each to api/oauth.ts). Its issuer is the
 * deployment's public origin, so its RFC 8414 metadata sits at the root well-known location clients build from it.
 */

export const METADATA_PATH = '/.well-known/oauth-authorization-server';
export const AUTHORIZE_PATH = '/oauth/authorize';
export const CONSENT_PATH = '/oauth/consent';
export const CALLBACK_PATH = '/oauth/callback';
export const TOKEN_PATH = '/oauth/token';
export const REGISTER_PATH = '/oauth/register';
export const REVOKE_PATH = '/oauth/revoke';
export const JWKS_PATH = '/oauth/jwks';

/** The endpoints by name, as the rewrites pass them (`/api/oauth?endpoint=<name>`). */
export const ENDPOINTS = {
  metadata: METADATA_PATH,
  authorize: AUTHORIZE_PATH,
  consent: CONSENT_PATH,
  callback: CALLBACK_PATH,
  token: TOKEN_PATH,
  register: REGISTER_PATH,
  revoke: REVOKE_PATH,
  jwks: JWKS_PATH,
} as const;

export type Endpoint = keyof typeof ENDPOINTS;
